"""Measured difficulty: a model's pass rate over k samples per task, binned into levels.

The result is a new pool version (versions are immutable) whose tasks carry the measured
pass rate in ``meta``. Runs on the ``cpu`` queue; progress is saved on the job row and
published to the team's websocket group.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import torch
from django.db import transaction
from django.utils import timezone

from crucible.realtime.publish import publish_to_team
from tasks_app import verifiers
from tasks_app.families.base import Task
from tasks_app.models import PoolJob, PoolVersion
from tasks_app.pools.grading import measure_difficulty
from tasks_app.services import pools
from training.config import ModelConfig, SamplingConfig
from training.generation import HFGenerator
from training.models import load_model

from ..adapters import item_for, verifier_reward_fn

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
) -> list[float]:
    """For each task, the share of ``k`` sampled completions the verifier accepts."""
    model, tokenizer = load_model(ModelConfig(path=model_path))
    generator = HFGenerator(model, tokenizer)
    reward_fn = verifier_reward_fn(spec)
    sampling = SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature)
    torch.manual_seed(seed)
    rates: list[float] = []
    for start in range(0, len(tasks), batch_size):
        chunk = [item_for(t) for t in tasks[start : start + batch_size]]
        rollout = generator.generate([it.prompt for it in chunk], sampling, n=k)
        grouped = [it for it in chunk for _ in range(k)]
        results = reward_fn(grouped, rollout.texts)
        rates += [
            sum(r.passed for r in results[i * k : (i + 1) * k]) / k for i in range(len(chunk))
        ]
        if progress is not None:
            progress(len(rates), len(tasks))
    return rates


def claim(job_id: int) -> PoolJob | None:
    """Take a queued job; None if another worker (or a re-delivery) already has it."""
    taken = PoolJob.objects.filter(pk=job_id, status=PoolJob.Status.QUEUED).update(
        status=PoolJob.Status.RUNNING, message="loading the model"
    )
    return PoolJob.objects.select_related("version__family__team").get(pk=job_id) if taken else None


def run_job(job_id: int) -> None:
    job = claim(job_id)
    if job is None:
        logger.info("pool_job.already_claimed", extra={"job_id": job_id})
        return
    try:
        version = _grade(job)
    except Exception as exc:  # noqa: BLE001 - any failure is reported on the job
        logger.exception("pool_job.failed", extra={"job_id": job_id})
        _finish(job, PoolJob.Status.FAILED, f"{type(exc).__name__}: {exc}")
        return
    job.result_version = version
    _finish(job, PoolJob.Status.SUCCEEDED, f"version {version.number} written")


def _grade(job: PoolJob) -> PoolVersion:
    source = job.version
    params = job.params
    rows = list(source.tasks.order_by("position"))
    tasks = [pools.task_from_row(row) for row in rows]
    spec = params.get("spec") or verifiers.default_spec(source.family.kind)
    rates = pass_rates(
        params["model_path"],
        tasks,
        spec,
        k=params["k"],
        temperature=params.get("temperature", 1.0),
        max_new_tokens=params.get("max_new_tokens", 64),
        progress=lambda done, total: _progress(job, done, total),
    )
    # Rates were sampled in bulk; measure_difficulty asks for them task by task.
    lookup = {id(task): rate for task, rate in zip(tasks, rates, strict=True)}
    measured = measure_difficulty(
        tasks, lambda task, _k: lookup[id(task)], params["k"], levels=params.get("levels", 5)
    )
    graded = [m.task for m in measured]
    detail = {
        "graded_from": source.number,
        "model_path": params["model_path"],
        "k": params["k"],
        "mean_pass_rate": sum(rates) / len(rates) if rates else None,
    }
    version, _ = pools.version_from_tasks(
        job.created_by,
        source.family,
        graded,
        source=PoolVersion.Source.GRADING,
        detail=detail,
        near=False,
        note=f"difficulty measured from v{source.number}",
    )
    return version


def _progress(job: PoolJob, done: int, total: int) -> None:
    job.progress = done / total if total else 1.0
    job.message = f"{done}/{total} tasks sampled"
    job.save(update_fields=["progress", "message"])
    _publish(job)


def _finish(job: PoolJob, status: str, message: str) -> None:
    job.status, job.message, job.finished_at = status, message, timezone.now()
    if status == PoolJob.Status.SUCCEEDED:
        job.progress = 1.0
    job.save(update_fields=["status", "message", "finished_at", "progress", "result_version"])
    _publish(job)


def _publish(job: PoolJob) -> None:
    event = {
        "type": "pool.job_updated",
        "job": job.pk,
        "version": job.version_id,
        "status": job.status,
        "progress": job.progress,
        "message": job.message,
    }
    transaction.on_commit(lambda: publish_to_team(job.version.family.team_id, event))
