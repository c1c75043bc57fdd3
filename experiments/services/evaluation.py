"""Evaluation jobs: a checkpoint or a base model on the held-out split of chosen families.

``start`` validates everything the job will need (the checkpoint still on disk, the model in
the catalogue, the pool and verifier versions in the team) so a bad request is a 400 that
saves nothing. The job runs on the ``cpu`` queue: it claims its row with a conditional
update, samples k completions per held-out task (the engine's decode loop, a batch of
tasks at a time), judges them with the chosen verifier version on threads while the next
batch samples (``training.evaluation.judged_batches``) and writes each task's result as it
goes, with its progress, live. A family played as an environment (``TaskFamily.environment``)
plays k episodes per task instead, within the family's limits and at the job's temperature
(``training.evaluation.judged_episode_batches``), each judged on its final state by the chosen
verifier version, and the task's result keeps its turn budget and each episode's turns,
tokens and errors (``EvaluationResult.episodes``). A re-delivered job whose worker died (no heartbeat for
``STALE_SECONDS``) is claimed again and resumes after the tasks already written; after
``MAX_ATTEMPTS`` it is marked failed with the reason. Each attempt's worker time counts in
the team's usage as ``evaluation`` on the job's queue.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from crucible import jobs
from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from crucible.realtime.publish import publish_to_team
from tasks_app.environments.family_config import limits_of
from tasks_app.services import held_out, pinning
from tasks_app.services.environments import environment_module
from training.config import ModelConfig, SamplingConfig
from training.decode import make_generator
from training.episodes import EnvironmentSpec
from training.evaluation import (
    EVAL_PROMPTS_PER_BATCH,
    EVAL_VERIFICATION_WORKERS,
    judged_batches,
    judged_episode_batches,
)
from training.field_spec import Problems, build, load
from training.interfaces import RewardResult
from training.models import load_model
from training.prompting import RAW_FORMAT, PromptFormat

from .. import catalogue, stats
from .. import config as cfg
from ..adapters import pool_item, verifier_reward_fn
from ..episode_adapters import EpisodeFamily, environment_spec
from ..jobs import RUN_EVALUATION
from ..models import Checkpoint, EvaluationJob, EvaluationResult, EvaluationState, EvaluationSuite
from . import usage
from .failures import failure_reason

logger = logging.getLogger(__name__)
MAX_K = 64
MAX_TASKS = 5_000
STALE_SECONDS = 300
"""A running job without a heartbeat this long has lost its worker."""
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class Settings:
    k: int = 4
    temperature: float = 1.0
    max_new_tokens: int = 16
    max_tasks: int = 200
    seed: int = 0


# --- starting one --------------------------------------------------------------------------


def start(
    user: AbstractBaseUser | None,
    team: Team,
    families: Sequence[dict[str, Any]],
    settings_: Settings,
    *,
    checkpoint: int | None = None,
    model: str | None = None,
    suite: EvaluationSuite | None = None,
    prompt_format: Any = None,
    format_of_checkpoint: int | None = None,
) -> EvaluationJob:
    """Queue an evaluation of a checkpoint of ``team`` or of a catalogue model; ``suite`` is
    where ``families`` and ``settings_`` came from, if anywhere. Its prompt format is
    ``prompt_format`` (``training.prompting.PromptFormat``'s plain data), or the one checkpoint
    ``format_of_checkpoint`` trained in (a base model evaluated to compare with it), else
    ``chosen_format``'s default."""
    target, subject = _subject(team, checkpoint, model)
    fmt = chosen_format(team, target, model, prompt_format, format_of_checkpoint)
    resolved = resolve_families(team, families)
    with transaction.atomic():
        job = EvaluationJob.objects.create(
            team=team,
            checkpoint=target,
            model="" if target else str(model),
            subject=subject,
            families=resolved,
            k=settings_.k,
            temperature=settings_.temperature,
            max_new_tokens=settings_.max_new_tokens,
            max_tasks=settings_.max_tasks,
            seed=settings_.seed,
            prompt_format=format_data(fmt),
            suite=suite,
            created_by=user,
        )
        changes = {
            "families": resolved,
            "suite": suite.pk if suite else None,
            "prompt_format": job.prompt_format,
        }
        record(user, "evaluation.started", job, team=team, changes=changes)
        jobs.send_on_commit(RUN_EVALUATION, job.pk)
    return job


def _subject(
    team: Team, checkpoint: int | None, model: str | None
) -> tuple[Checkpoint | None, str]:
    if (checkpoint is None) == (model is None):
        raise field_errors([("checkpoint", "give either checkpoint or model")])
    if checkpoint is not None:
        found = (
            Checkpoint.objects.select_related("run__experiment")
            .filter(pk=checkpoint, run__team=team)
            .first()
        )
        if found is None:
            raise field_errors([("checkpoint", f"checkpoint {checkpoint} does not exist")])
        if not (Path(found.path) / "model").is_dir():
            raise field_errors(
                [("checkpoint", f"checkpoint {checkpoint} is no longer on disk")], code="gone"
            )
        run = found.run
        return found, f"{run.title} run {run.number}, step {found.step}"
    names = {entry.name for entry in catalogue.catalogue(Path(settings.MODELS_DIR))}
    if model not in names:
        known = ", ".join(sorted(names)) or "none"
        raise field_errors([("model", f"unknown model {model!r}; available: {known}")])
    return None, str(model)


def chosen_format(
    team: Team,
    target: Checkpoint | None,
    model: str | None,
    prompt_format: Any,
    format_of_checkpoint: int | None,
) -> PromptFormat:
    """The format a job evaluates in: the one given, or that of checkpoint
    ``format_of_checkpoint``; by default a checkpoint's recorded format (the one it trained
    in) and raw for a base model. Chat on a base model whose tokenizer has no chat template is
    a 400 naming the field that asked for it."""
    if prompt_format is not None and format_of_checkpoint is not None:
        why = "give either prompt_format or format_of_checkpoint, not both"
        raise field_errors([("format_of_checkpoint", why)])
    field = "prompt_format.kind"
    if prompt_format is not None:
        try:
            fmt = load(PromptFormat, prompt_format, "prompt_format")
        except Problems as exc:
            raise field_errors(exc.errors) from exc
    elif format_of_checkpoint is not None:
        field = "format_of_checkpoint"
        source = (
            Checkpoint.objects.select_related("run")
            .filter(pk=format_of_checkpoint, run__team=team)
            .first()
        )
        if source is None:
            why = f"checkpoint {format_of_checkpoint} does not exist"
            raise field_errors([("format_of_checkpoint", why)])
        fmt = cfg.format_of(source.run.config_of_record)
    elif target is not None:
        return cfg.format_of(target.run.config_of_record)
    else:
        return RAW_FORMAT
    if fmt.is_chat and target is None and not _has_chat_template(str(model)):
        why = f"chat format needs a chat template, and the tokenizer of {model!r} has none"
        raise field_errors([(field, why)])
    return fmt


def _has_chat_template(model: str) -> bool:
    """Whether the catalogue says ``model``'s tokenizer has a chat template; True when it
    cannot tell yet (the built-in model before it is built), for the job to find out."""
    for entry in catalogue.catalogue(Path(settings.MODELS_DIR)):
        if entry.name == model:
            return entry.info is None or bool(entry.info.get("chat_template"))
    return True


def format_data(fmt: PromptFormat) -> dict[str, Any]:
    """A format as the job stores it (JSON types)."""
    data = dataclasses.asdict(fmt)
    return {**data, "reasoning_tags": list(data["reasoning_tags"])}


def resolve_families(team: Team, families: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each ``{pool_version, verifier_version, threshold_pts}`` checked against the team's
    versions and stored with its family; a 400 naming ``families[i].<field>`` if not."""
    if not families:
        raise field_errors([("families", "choose at least one family version")])
    versions = held_out.versions_in_team(team, [f["pool_version"] for f in families])
    specs = pinning.verifier_specs(team, [f["verifier_version"] for f in families])
    errors, out = [], []
    for i, entry in enumerate(families):
        version = versions.get(entry["pool_version"])
        if version is None:
            errors.append((f"families[{i}].pool_version", "no such pool version in the team"))
        if entry["verifier_version"] not in specs:
            errors.append(
                (f"families[{i}].verifier_version", "no such verifier version in the team")
            )
        if version is not None:
            threshold = entry.get("threshold_pts", stats.DEFAULT_THRESHOLD_PTS)
            out.append({
                "family": version.family, "pool_version": version.id,
                "version_number": version.number, "verifier_version": entry["verifier_version"],
                "threshold_pts": float(threshold),
            })  # fmt: skip
    if errors:
        raise field_errors(errors)
    return out


# --- the job -------------------------------------------------------------------------------


def run_job(job_id: int) -> None:
    job = claim(job_id)
    if job is None:
        logger.info("evaluation.not_claimed", extra={"evaluation_id": job_id})
        return
    meter = usage.JobMeter(job.team_id, RUN_EVALUATION, usage.EVALUATION)
    try:
        evaluate(job)
    except SoftTimeLimitExceeded:
        _finish(job, EvaluationState.FAILED, "the evaluation reached its time limit")
    except Exception as exc:  # noqa: BLE001 - every failure ends on the job, with its reason
        logger.exception("evaluation.failed", extra={"evaluation_id": job_id})
        _finish(job, EvaluationState.FAILED, failure_reason(exc)[:500])
    else:
        _finish(job, EvaluationState.SUCCEEDED, f"{job.results.count()} tasks evaluated")
    finally:
        meter.charge()


def claim(job_id: int, now: Any = None) -> EvaluationJob | None:
    """Take a queued job, or a running one whose worker stopped beating; None otherwise.

    A job whose workers died ``MAX_ATTEMPTS`` times is marked failed instead."""
    now = now or timezone.now()
    stale = Q(
        state=EvaluationState.RUNNING, heartbeat_at__lt=now - timedelta(seconds=STALE_SECONDS)
    )
    claimable = EvaluationJob.objects.filter(Q(state=EvaluationState.QUEUED) | stale, pk=job_id)
    taken = claimable.filter(attempts__lt=MAX_ATTEMPTS).update(
        state=EvaluationState.RUNNING,
        attempts=F("attempts") + 1,
        heartbeat_at=now,
        started_at=now,
        message="loading the model",
    )
    job = EvaluationJob.objects.filter(pk=job_id).first()
    if job is None:
        return None
    if not taken:
        if claimable.exists():  # stale, and out of attempts
            reason = f"the worker was lost {job.attempts} times; giving up"
            _finish(job, EvaluationState.FAILED, reason)
        return None
    _publish(job)
    return job


def model_dir(job: EvaluationJob) -> Path:
    if job.model:
        return catalogue.resolve(job.model, Path(settings.MODELS_DIR))
    if job.checkpoint is None:
        raise FileNotFoundError(f"the checkpoint of {job.subject} was deleted")
    return Path(job.checkpoint.path) / "model"


def prompt_format(job: EvaluationJob) -> PromptFormat:
    """The format the job chose (its prompts encoded, its completions stopped and its
    answers read so). A job from before the choice was stored: its checkpoint's run's
    format, raw for a catalogue model."""
    if job.prompt_format is not None:
        return build(PromptFormat, job.prompt_format)
    if job.checkpoint is None:
        return RAW_FORMAT
    return cfg.format_of(job.checkpoint.run.config_of_record)


def evaluate(job: EvaluationJob) -> None:
    """Sample and judge every held-out task not already written (a resumed job skips them)."""
    done = set(job.results.values_list("pool_version", "task_hash"))
    work = [(entry, _items(entry, job.max_tasks)) for entry in job.families]
    total = sum(len(items) for _, items in work)
    model, tokenizer = load_model(ModelConfig(path=str(model_dir(job))))
    sampling = SamplingConfig(max_new_tokens=job.max_new_tokens, temperature=job.temperature)
    fmt = prompt_format(job)
    generator = make_generator(sampling, model, tokenizer, fmt)
    specs = pinning.verifier_specs(job.team, [e["verifier_version"] for e in job.families])
    environments = _environments(job, specs)
    finished = len(done)
    for entry, items in work:
        todo = [it for it in items if (entry["pool_version"], it.task_hash) not in done]
        environment = environments.get(entry["pool_version"])
        if environment is not None:
            played = judged_episode_batches(
                generator, tokenizer, todo, environment, sampling, job.k,
                prompts_per_batch=EVAL_PROMPTS_PER_BATCH, seed_of=_seeds(job, entry),
                device=next(model.parameters()).device, prompt_format=fmt,
            )  # fmt: skip
            for batch in played:
                episodes = [
                    batch.task_episodes(i, environment.limits) for i in range(len(batch.items))
                ]
                judged = _judge(batch.results, len(batch.items), job.k)
                _save(job, entry, batch.items, judged, episodes)
                finished += len(batch.items)
                report_progress(job, finished, total)
            continue
        reward_fn = verifier_reward_fn(specs[entry["verifier_version"]])
        batches = judged_batches(
            generator, todo, reward_fn, sampling, job.k,
            prompts_per_batch=EVAL_PROMPTS_PER_BATCH, seed_of=_seeds(job, entry),
            workers=EVAL_VERIFICATION_WORKERS, prompt_format=fmt,
        )  # fmt: skip
        for chunk, results in batches:
            _save(job, entry, chunk, _judge(results, len(chunk), job.k))
            finished += len(chunk)
            report_progress(job, finished, total)


def _environments(
    job: EvaluationJob, specs: dict[int, dict[str, Any]]
) -> dict[int, EnvironmentSpec]:
    """Per pool version whose family is played as an environment, the engine's episode
    inputs: the family's environment kind within its limits, judged by the entry's verifier."""
    pinned = pinning.pinned_versions(job.team, [e["pool_version"] for e in job.families])
    out = {}
    for entry in job.families:
        version = pinned.get(entry["pool_version"])
        if version is None or not version.environment:
            continue
        family = EpisodeFamily(
            kind=version.kind,
            environment=environment_module(version.environment["kind"]),
            spec=specs[entry["verifier_version"]],
            limits=limits_of(version.environment),
        )
        out[entry["pool_version"]] = environment_spec({entry["family"]: family})
    return out


def _seeds(job: EvaluationJob, entry: dict[str, Any]) -> Callable[[int], int]:
    """The seed of the batch starting at each index of a family's remaining tasks."""
    base = job.seed + entry["pool_version"] * 100_003
    return lambda start: base + start


def _items(entry: dict[str, Any], limit: int) -> list[Any]:
    tasks = pinning.version_tasks(entry["pool_version"], pinning.HELD_OUT, limit)
    return [pool_item(t, entry["family"], t.meta["content_hash"]) for t in tasks]


def _judge(
    results: Sequence[RewardResult], n_items: int, k: int
) -> list[tuple[int, dict[str, int]]]:
    """Per item (results rows i*k .. i*k+k-1): samples passed, and failed samples by
    ``<stage>/<error type>``."""
    out = []
    for i in range(n_items):
        mine = results[i * k : (i + 1) * k]
        errors = Counter(failure_key(r) for r in mine if not r.passed)
        out.append((sum(bool(r.passed) for r in mine), dict(errors)))
    return out


def failure_key(result: RewardResult) -> str:
    """The stage and error type of the first verifier layer that failed."""
    for layer in (result.details or {}).get("layers", []):
        if not layer.get("passed") and not layer.get("skipped"):
            return f"{layer.get('stage', 'unknown')}/{layer.get('error_type', 'unknown')}"
    return f"unknown/{result.error_type or 'unknown'}"


def _save(
    job: EvaluationJob,
    entry: dict[str, Any],
    chunk: Sequence[Any],
    judged: Sequence[tuple[int, dict[str, int]]],
    episodes: Sequence[dict[str, Any] | None] | None = None,
) -> None:
    rows = [
        EvaluationResult(
            job=job, family=entry["family"], pool_version=entry["pool_version"],
            task_hash=item.task_hash, difficulty=item.difficulty, passes=passes, k=job.k,
            errors=errors, episodes=played,
        )
        for item, (passes, errors), played in zip(
            chunk, judged, episodes or [None] * len(chunk), strict=True
        )
    ]  # fmt: skip
    EvaluationResult.objects.bulk_create(rows, ignore_conflicts=True)


def outcomes(job: EvaluationJob) -> list[stats.Outcome]:
    """The job's per-task results as the statistics take them."""
    fields = ("task_hash", "family", "difficulty", "passes", "k", "errors", "episodes")
    return [stats.Outcome(*row) for row in job.results.order_by("id").values_list(*fields)]


# --- progress and the end ------------------------------------------------------------------


def report_progress(job: EvaluationJob, done: int, total: int) -> None:
    job.progress = done / total if total else 1.0
    job.message = f"{done}/{total} tasks sampled and verified"
    EvaluationJob.objects.filter(pk=job.pk, state=EvaluationState.RUNNING).update(
        progress=job.progress, message=job.message, heartbeat_at=timezone.now()
    )
    _publish(job)


def _finish(job: EvaluationJob, state: str, message: str) -> None:
    job.state, job.message, job.finished_at = state, message, timezone.now()
    if state == EvaluationState.SUCCEEDED:
        job.progress = 1.0
    job.save(update_fields=["state", "message", "finished_at", "progress"])
    logger.info("evaluation.finished", extra={"evaluation_id": job.pk, "state": state})
    _publish(job)


def _publish(job: EvaluationJob) -> None:
    event = {
        "type": "evaluation.updated",
        "evaluation": job.pk,
        "state": str(job.state),
        "progress": job.progress,
        "message": job.message,
    }
    team_id = job.team_id
    transaction.on_commit(lambda: publish_to_team(team_id, event), robust=True)
