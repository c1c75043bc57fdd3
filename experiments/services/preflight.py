"""Pre-flight jobs: sample the chosen model on the pools before a run spends its compute.

``start`` resolves the configuration exactly as creating an experiment does (the same
canonical form and hash), so a pre-flight run from the wizard is kept with the experiment
created from it. The job runs on the ``cpu`` queue: it claims its row with a
conditional update, draws a seeded slice of each family's train split per level, generates G
completions per task with the experiment's model and sampling settings, judges them with the
pinned verifier versions (the same reward function a run builds), and reports its progress
live over the team's events socket; its worker time and generated tokens count in the team's
usage as ``preflight`` on the job's queue. ``experiments.preflight`` turns the verdicts into the
report and its warnings.
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from crucible import jobs
from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from crucible.realtime.publish import publish_to_team
from tasks_app.families.base import Task
from tasks_app.services import pinning
from training.config import RLConfig
from training.decode import make_generator
from training.episodes import play
from training.interfaces import Item, RewardResult
from training.models import load_model
from training.presets import MIN_PROMPTS_TO_LEARN
from training.prompting import answers_only

from .. import catalogue
from .. import config as cfg
from .. import preflight as pure
from ..jobs import RUN_PREFLIGHT
from ..models import Experiment, PreflightReport, PreflightState
from . import experiments, usage, workers
from .engine_inputs import Inputs, build_inputs
from .failures import failure_reason

logger = logging.getLogger(__name__)
DEFAULT_TASKS_PER_LEVEL = 32
MAX_TASKS_PER_LEVEL = 256
PROMPTS_PER_BATCH = 16
"""Prompts per generation call (times G completions each)."""


# --- starting one --------------------------------------------------------------------------


def start(
    user: AbstractBaseUser,
    team: Team,
    config: Any,
    *,
    tasks_per_level: int = DEFAULT_TASKS_PER_LEVEL,
    experiment: Experiment | None = None,
) -> PreflightReport:
    """Queue a pre-flight of ``config`` (a 400 naming the field when it is not valid)."""
    canonical = experiments.resolve_config(team, config)
    problem = workers.model_problem(canonical["model"], queue=jobs.queue_of(RUN_PREFLIGHT))
    if problem:
        raise field_errors([("config.model", problem)], code="unavailable")
    with transaction.atomic():
        report = PreflightReport.objects.create(
            team=team,
            experiment=experiment,
            config=canonical,
            config_hash=cfg.config_hash(canonical),
            tasks_per_level=tasks_per_level,
            created_by=user,
        )
        changes = {"config_hash": report.config_hash, "tasks_per_level": tasks_per_level}
        record(user, "preflight.started", report, team=team, changes=changes)
        jobs.send_on_commit(RUN_PREFLIGHT, report.pk)
    return report


# --- the job -------------------------------------------------------------------------------


def run_job(report_id: int) -> None:
    report = claim(report_id)
    if report is None:
        logger.info("preflight.already_claimed", extra={"preflight_id": report_id})
        return
    meter = usage.JobMeter(report.team_id, RUN_PREFLIGHT, usage.PREFLIGHT)
    try:
        result = measure(report, meter.generated)
    except SoftTimeLimitExceeded:
        _finish(report, PreflightState.FAILED, "the pre-flight reached its time limit")
    except Exception as exc:  # noqa: BLE001 - every failure ends on the report, with its reason
        logger.exception("preflight.failed", extra={"preflight_id": report_id})
        _finish(report, PreflightState.FAILED, failure_reason(exc)[:500])
    else:
        _finish(report, PreflightState.SUCCEEDED, _headline(result), result)
    finally:
        meter.charge()


def claim(report_id: int) -> PreflightReport | None:
    """Take a queued pre-flight; None when another worker (or a re-delivery) has it."""
    taken = PreflightReport.objects.filter(pk=report_id, state=PreflightState.QUEUED).update(
        state=PreflightState.RUNNING, started_at=timezone.now(), message="loading the model"
    )
    if not taken:
        return None
    report = PreflightReport.objects.select_related("team").get(pk=report_id)
    _publish(report)
    return report


@dataclass(frozen=True)
class FamilySlice:
    name: str
    """The family's slug, as the run's metrics and rollouts name it."""
    items: list[Item]
    """``tasks_per_level`` train tasks per level (fewer where the level has fewer), by level."""


def measure(
    report: PreflightReport, counted: Callable[[int], None] = lambda tokens: None
) -> dict[str, Any]:
    """Sample, verify and summarise; the report's ``result``. ``counted`` is told each
    batch's generated tokens."""
    config = cfg.parse(report.config)
    model_path = catalogue.resolve(config.model, Path(settings.MODELS_DIR))
    engine = config.engine_config(str(model_path))
    inputs = build_inputs(report.team, config)
    slices = list(_slices(inputs, config, report.tasks_per_level))
    group_size = engine.group_size if isinstance(engine, RLConfig) else 1
    shaping = pure.RewardShaping(
        getattr(engine, "reward_normalization", "none"), getattr(engine, "reward_clip", None)
    )
    fallback = getattr(engine, "unscorable_reward", 0.0)
    if engine.cpu_threads:
        torch.set_num_threads(engine.cpu_threads)
    torch.manual_seed(config.seed)
    model, tokenizer = load_model(engine.model)
    # The run's own backend and format: its prompts, stop tokens and answers read as it will.
    generator = make_generator(engine.sampling, model, tokenizer, config.format)
    reward_fn = answers_only(inputs.reward_fn, config.format)
    total, done = sum(len(s.items) for s in slices), 0
    families = []
    for family in slices:
        judged: list[pure.Judged] = []
        for chunk in _chunks(family.items, PROMPTS_PER_BATCH):
            rows = [item for item in chunk for _ in range(group_size)]
            if inputs.environment is not None:  # the run trains on episodes: play them
                played = play(
                    generator,
                    tokenizer,
                    config.format,
                    inputs.environment,
                    rows,
                    engine.sampling,
                    model.device,
                )
                counted(sum(record.assistant_tokens for record in played.records))
                results = inputs.environment.reward_fn(rows, played.records)
            else:
                rollout = generator.generate(
                    [it.prompt for it in chunk], engine.sampling, group_size
                )
                counted(int(rollout.lengths.sum().item()))
                results = reward_fn(rows, rollout.texts)
            judged += _judge(rows, results, group_size, len(judged), fallback)
            done += len(chunk)
            report_progress(report, done, total)
        families.append(pure.family_report(family.name, judged, group_size, shaping))
    settings_used = {
        "model": config.model,
        "group_size": group_size,
        "tasks_per_level": report.tasks_per_level,
        "temperature": engine.sampling.temperature,
        "max_new_tokens": engine.sampling.max_new_tokens,
    }
    least = MIN_PROMPTS_TO_LEARN if isinstance(engine, RLConfig) else None
    planned = pure.run_size_warnings(engine.max_steps, engine.prompts_per_step, least)
    return pure.report(families, group_size, planned) | {"settings": settings_used}


def _slices(inputs: Inputs, config: cfg.ExperimentConfig, per_level: int) -> Iterator[FamilySlice]:
    """A seeded slice of each family's train split at each of its curriculum's levels."""
    rng = random.Random(config.seed)
    names = {source.pool_version: name for name, source in inputs.sources.items()}
    for family in config.curriculum.families:
        name = names[family.pool_version]
        by_level: dict[int, list[Task]] = defaultdict(list)
        for task in pinning.version_tasks(family.pool_version, pinning.TRAIN):
            by_level[task.difficulty].append(task)
        levels = family.levels or sorted(by_level)
        items = [
            inputs.sampler.item(task, name)
            for level in levels
            for task in rng.sample(by_level[level], min(per_level, len(by_level[level])))
        ]
        yield FamilySlice(name, items)


def _chunks(items: Sequence[Item], size: int) -> Iterator[list[Item]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _judge(
    rows: Sequence[Item],
    results: Sequence[RewardResult],
    group_size: int,
    offset: int,
    fallback: float,
) -> list[pure.Judged]:
    """The verdicts on a chunk's completions (or episodes), ``rows`` each item G times;
    ``offset`` numbers its groups after those before, and ``fallback`` (the run's
    ``unscorable_reward``) stands where the verifier gave none."""
    return [
        pure.Judged(
            level=item.difficulty,
            group=(offset // group_size) + row // group_size,
            reward=fallback if result.reward is None else float(result.reward),
            passed=bool(result.passed),
            error_type="" if result.passed else str(result.error_type or ""),
            seconds=float((result.details or {}).get("seconds", 0.0)),
        )
        for row, (item, result) in enumerate(zip(rows, results, strict=True))
    ]


def _headline(result: dict[str, Any]) -> str:
    passed, flat = result.get("pass_rate"), result.get("frac_reward_zero_std")
    parts = [f"{result['completions']} completions judged"]
    if passed is not None:
        parts.append(f"{passed:.0%} passed")
    if flat is not None:
        parts.append(f"{flat:.0%} of groups without signal")
    warnings = len(result.get("warnings", []))
    parts.append(f"{warnings} warning{'' if warnings == 1 else 's'}")
    return ", ".join(parts)


# --- progress and the end ------------------------------------------------------------------


def report_progress(report: PreflightReport, done: int, total: int) -> None:
    report.progress = done / total if total else 1.0
    report.message = f"{done}/{total} tasks sampled and verified"
    PreflightReport.objects.filter(pk=report.pk, state=PreflightState.RUNNING).update(
        progress=report.progress, message=report.message
    )
    _publish(report)


def _finish(
    report: PreflightReport, state: str, message: str, result: dict[str, Any] | None = None
) -> None:
    report.state, report.message, report.finished_at = state, message, timezone.now()
    report.result = result or {}
    if state == PreflightState.SUCCEEDED:
        report.progress = 1.0
    report.save(update_fields=["state", "message", "finished_at", "result", "progress"])
    logger.info("preflight.finished", extra={"preflight_id": report.pk, "state": state})
    _publish(report)


def _publish(report: PreflightReport) -> None:
    event = {
        "type": "preflight.updated",
        "preflight": report.pk,
        "experiment": report.experiment_id,
        "state": str(report.state),
        "progress": report.progress,
        "message": report.message,
    }
    team_id = report.team_id
    transaction.on_commit(lambda: publish_to_team(team_id, event), robust=True)
