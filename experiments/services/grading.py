"""Measured difficulty: a model's pass rate over k samples per task, binned into levels.

The result is a new pool version (versions are immutable) whose tasks carry the measured
pass rate in ``meta``. Runs on the ``cpu`` queue; the job row, its progress and the new
version are written through ``tasks_app.services.pool_jobs``; its worker time and generated
tokens count in the team's usage, under the family, as ``grading`` on the ``cpu`` queue.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import torch
from django.conf import settings

from tasks_app.families.base import Task
from tasks_app.pools.grading import measure_difficulty
from tasks_app.services import pool_jobs, verifiers
from training.config import ModelConfig, SamplingConfig
from training.decode import make_generator
from training.models import load_model

from .. import catalogue
from ..adapters import item_for, verifier_reward_fn
from ..jobs import GRADE_POOL_VERSION
from . import usage

logger = logging.getLogger(__name__)
Progress = Callable[[int, int], None]


def pass_rates(
    model_path: str,
    tasks: Sequence[Task],
    spec: dict[str, Any],
    *,
    k: int,
    temperature: float = 1.0,
    max_new_tokens: int = 64,
    batch_size: int = 16,
    seed: int = 0,
    progress: Progress | None = None,
    counted: Callable[[int], None] | None = None,
) -> list[float]:
    """For each task, the share of ``k`` sampled completions the verifier accepts;
    ``counted`` is told each batch's generated tokens."""
    model, tokenizer = load_model(ModelConfig(path=model_path))
    reward_fn = verifier_reward_fn(spec)
    sampling = SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature)
    generator = make_generator(sampling, model, tokenizer)  # the engine's decode loop
    torch.manual_seed(seed)
    rates: list[float] = []
    for start in range(0, len(tasks), batch_size):
        chunk = [item_for(t) for t in tasks[start : start + batch_size]]
        rollout = generator.generate([it.prompt for it in chunk], sampling, n=k)
        if counted is not None:
            counted(int(rollout.lengths.sum().item()))
        grouped = [it for it in chunk for _ in range(k)]
        results = reward_fn(grouped, rollout.texts)
        rates += [
            sum(r.passed for r in results[i * k : (i + 1) * k]) / k for i in range(len(chunk))
        ]
        if progress is not None:
            progress(len(rates), len(tasks))
    return rates


def run_job(job_id: int) -> None:
    job = pool_jobs.claim(job_id)
    if job is None:
        logger.info("pool_job.already_claimed", extra={"job_id": job_id})
        return
    meter = usage.JobMeter(job.team_id, GRADE_POOL_VERSION, usage.GRADING, job.family)
    try:
        _grade(job, meter.generated)
    except Exception as exc:  # noqa: BLE001 - any failure is reported on the job
        logger.exception("pool_job.failed", extra={"job_id": job_id})
        pool_jobs.fail(job_id, f"{type(exc).__name__}: {exc}")
    finally:
        meter.charge()


def _grade(job: pool_jobs.ClaimedJob, counted: Callable[[int], None]) -> int:
    """Measure the job's tasks and save them as a graded version; returns its number."""
    params = job.params
    tasks = pool_jobs.job_tasks(job.id)
    spec = params.get("spec") or verifiers.default_spec(job.family_kind)
    rates = pass_rates(
        # A name from the catalogue; an unknown one fails the job with a sentence, not a
        # transformers traceback.
        str(catalogue.resolve(params["model_path"], settings.MODELS_DIR)),
        tasks,
        spec,
        k=params["k"],
        temperature=params.get("temperature", 1.0),
        max_new_tokens=params.get("max_new_tokens", 64),
        progress=lambda done, total: pool_jobs.report_progress(job.id, done, total),
        counted=counted,
    )
    # Rates were sampled in bulk; measure_difficulty asks for them task by task.
    lookup = {id(task): rate for task, rate in zip(tasks, rates, strict=True)}
    measured = measure_difficulty(
        tasks, lambda task, _k: lookup[id(task)], params["k"], levels=params.get("levels", 5)
    )
    detail = {
        "graded_from": job.version_number,
        "model_path": params["model_path"],
        "k": params["k"],
        "mean_pass_rate": sum(rates) / len(rates) if rates else None,
    }
    return pool_jobs.save_graded_version(
        job.id,
        [m.task for m in measured],
        detail=detail,
        note=f"difficulty measured from v{job.version_number}",
    )
