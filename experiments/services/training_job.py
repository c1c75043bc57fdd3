"""The training job: one attempt at one run, from its claim to a final state.

It builds the engine's inputs from the experiment's pinned configuration (a curriculum
sampler over the pinned versions' train splits, one verifier per family, the held-out sets,
the model from this worker's catalogue), resumes from the run's latest checkpoint, and calls
``training.train`` with the database-backed sink, store and control. Whatever happens, the
run does not stay "running": it succeeds, is cancelled, fails with the reason and its last
log lines, or (when the worker shuts down, or its database connection drops) goes back to the
queue to resume from its last checkpoint, as when its worker dies. A run
that succeeds with an evaluation suite in its configuration has its final checkpoint queued
for evaluation on that suite.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from rest_framework.exceptions import ValidationError

from crucible.accounts.models import Team
from crucible.api.errors import flatten
from tasks_app.services import pinning
from training.engine import train
from training.interfaces import Item, RewardFn

from .. import catalogue, launch, memory
from .. import config as cfg
from ..adapters import CurriculumSampler, per_family_reward_fn, verifier_reward_fn
from ..models import Run, RunState
from . import runs, suites, workers
from .recording import RunCheckpoints, RunLog, RunRecorder, Source
from .usage import UsageMeter

logger = logging.getLogger(__name__)


@dataclass
class Inputs:
    """What the engine takes from the platform for one run."""

    sampler: CurriculumSampler
    reward_fn: RewardFn
    eval_items: list[Item]
    sources: dict[str, Source]


def run_job(run_id: int, worker: str) -> None:
    """Claim the run for ``worker`` and train it; a run held by another worker is left."""
    run = runs.claim(run_id, worker)
    if run is None:
        return
    with RunLog(run) as log, workers.keep_alive(run.pk):
        try:
            state = attempt(run, log)
        except (InterfaceError, OperationalError) as exc:
            retry_or_fail(run, exc, log)
        except SoftTimeLimitExceeded:
            why = f"the run reached its time limit of {settings.RUN_TIME_LIMIT_SECONDS} s"
            logger.error("run.time_limit", extra={"run_id": run.pk})
            runs.fail(run, why, log_tail=log.tail())
        except Exception as exc:  # noqa: BLE001 - every failure ends on the run, with its reason
            logger.exception("run %s failed", run.pk)
            runs.fail(run, failure_reason(exc), log_tail=log.tail())
        except BaseException:
            # The worker is shutting down: another one resumes from the last checkpoint.
            logger.warning("run %s handed back: the worker is stopping", run.pk)
            runs.requeue(run, log_tail=log.tail())
            raise
        else:
            if state == RunState.PAUSED:
                runs.pause_held(run, log_tail=log.tail())
            elif state is not None and runs.finish(run, state, log_tail=log.tail()):
                if state == RunState.SUCCEEDED:
                    suites.evaluate_finished_run(run)


def retry_or_fail(run: Run, exc: DatabaseError, log: RunLog) -> None:
    """A transient database error (a dropped connection, a restarting server): the run goes
    back to the queue to resume from its last checkpoint, at most ``RUN_DATABASE_RETRIES``
    times, so a database that stays broken still ends the run."""
    # The broken connection would fail every later query of this worker: open a new one.
    with contextlib.suppress(DatabaseError):
        connection.close()
    if run.database_retries >= settings.RUN_DATABASE_RETRIES:
        logger.exception("run %s failed: database error after %d retries", run.pk, run.database_retries)
        runs.fail(run, failure_reason(exc), log_tail=log.tail())
        return
    logger.warning("run %s handed back after a database error: %s", run.pk, exc)
    runs.requeue(run, log_tail=log.tail(), database_retry=True)


OUT_OF_MEMORY_ADVICE = (
    "lower prompts_per_step, group_size, micro_batch_size or sampling.max_new_tokens, or "
    "train on a worker with more memory"
)


def failure_reason(exc: BaseException) -> str:
    if isinstance(exc, catalogue.UnknownModel):
        return f"model: {exc}"
    if memory.is_out_of_memory(exc):
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"out of memory: {detail} ({OUT_OF_MEMORY_ADVICE})"
    if isinstance(exc, launch.LaunchFailed) and memory.output_says_out_of_memory(exc.tail):
        return f"out of memory: a training process ran out ({OUT_OF_MEMORY_ADVICE})\n{exc}"
    if isinstance(exc, ValidationError):  # a pinned version that is no longer usable
        return "; ".join(f"{e['field'] or 'config'}: {e['message']}" for e in flatten(exc.detail))
    return f"{type(exc).__name__}: {exc}"


def attempt(run: Run, log: RunLog) -> str | None:
    """Train this attempt to the end; the final state, or None when the run was taken away."""
    if run.cancel_requested:
        return RunState.CANCELLED
    config = cfg.parse(run.experiment.config)
    if config.num_processes > 1:
        return in_processes(run, config, log)
    return train_here(run, config, log)


def in_processes(run: Run, config: cfg.ExperimentConfig, log: RunLog) -> str | None:
    """Train on ``num_processes`` ranks under ``accelerate launch``; this worker keeps the
    claim and the heartbeat, and the ranks' output goes into the run's log."""
    logger.info("run %s: starting %d processes (%s)", run.pk, config.num_processes, config.strategy)
    state = launch.run_in_processes(
        run.pk,
        config.num_processes,
        RANK_TARGET,
        strategy=config.strategy,
        mixed_precision=config.hyperparameters.get("mixed_precision", "no"),
        log=log.write_line,
    )
    return None if state is None else str(state)


RANK_TARGET = "experiments.services.training_job:train_rank"


def train_rank(run_id: int) -> str | None:
    """One rank of a run of several processes (``experiments.launch`` calls it on each): the
    same job as a single process; only the main rank records (the engine sees to it)."""
    run = Run.objects.select_related("experiment", "team").get(pk=run_id)
    return train_here(run, cfg.parse(run.experiment.config), None)


def train_here(run: Run, config: cfg.ExperimentConfig, log: RunLog | None) -> str | None:
    """Train this process's part of the run; the final state, or None when it was lost.

    The main process meters the attempt from here (loading included) to its end."""
    with memory_cap(config.num_processes):
        return _train_here(run, config, log)


@contextlib.contextmanager
def memory_cap(processes: int) -> Iterator[None]:
    """On a CPU worker, cap this process's memory at its share of what the worker offers runs,
    so a run that outgrows it fails here with MemoryError instead of the kernel's OOM killer
    ending the worker (see ``experiments.memory``). GPU workers raise torch's own error."""
    offered = workers.devices()
    if offered["cuda"]:
        yield
        return
    allowance = memory.run_allowance(offered["memory"], processes)
    with memory.address_space_limit(allowance) as cap:
        logger.info("run memory capped", extra={"allowance": allowance, "cap": cap})
        yield


def _train_here(run: Run, config: cfg.ExperimentConfig, log: RunLog | None) -> str | None:
    meter = UsageMeter(run, config.num_processes) if launch.is_main_process() else None
    model_path = catalogue.resolve(config.model, Path(settings.MODELS_DIR))
    inputs = build_inputs(run.team, config)
    store = RunCheckpoints(run)
    if launch.is_main_process():
        runs.mark_resumed(run, store.latest_step())
    recorder = RunRecorder(
        run,
        rollout_groups=config.rollout_groups,
        sources=inputs.sources,
        log=log,
        extra_metrics=inputs.sampler.metrics,
        meter=meter,
    )
    _announce(run, config, store)
    try:
        result = train(
            config.engine_config(str(model_path)),
            sampler=inputs.sampler,
            reward_fn=inputs.reward_fn,
            sink=recorder,
            store=store,
            control=recorder,
            eval_items=inputs.eval_items,
            rollout_sink=recorder,
        )
    finally:
        recorder.charge()  # the time after the last step: the final checkpoint, the teardown
    return final_state(run, recorder, result.stopped, result.steps)


def final_state(run: Run, recorder: RunRecorder, stopped: bool, steps: int) -> str | None:
    if recorder.lost:
        return None
    if not stopped:
        logger.info("run %s finished %d steps", run.pk, steps)
        return RunState.SUCCEEDED
    run.refresh_from_db(fields=["cancel_requested", "pause_requested", "pause_reason", "step"])
    if run.pause_requested and not run.cancel_requested:
        logger.info("run %s paused at step %d: %s", run.pk, steps, run.pause_reason)
        return RunState.PAUSED
    logger.info("run %s cancelled at step %d", run.pk, steps)
    return RunState.CANCELLED


def _announce(run: Run, config: cfg.ExperimentConfig, store: RunCheckpoints) -> None:
    resumed = f", resuming from step {run.resumed_from_step}" if run.resumed_from_step else ""
    rank = f" (rank {launch.process_rank()})" if config.num_processes > 1 else ""
    logger.info(
        "run %s%s attempt %d on %s: %s on %s, %d steps%s",
        run.pk,
        rank,
        run.attempts,
        run.worker,
        config.algorithm,
        config.model,
        run.max_steps,
        resumed,
    )


def build_inputs(team: Team, config: cfg.ExperimentConfig) -> Inputs:
    """Sampler, per-family reward, held-out items and reward sources of the pinned versions."""
    spec = config.curriculum
    policy, pinned = pinning.resolve_in_team(team, spec.saved_form())
    specs = pinning.verifier_specs(team, [f.verifier_version for f in spec.families])
    names = {f.pool_version: pinned[f.pool_version].family for f in spec.families}
    missing = [f.verifier_version for f in spec.families if f.verifier_version not in specs]
    if missing:
        raise LookupError(f"verifier versions {missing} are no longer available to the team")
    train_tasks = (
        (names[f.pool_version], task.difficulty, pinning.TRAIN, task)
        for f in spec.families
        for task in pinning.version_tasks(f.pool_version, pinning.TRAIN)
    )
    sampler = CurriculumSampler(policy, train_tasks, seed=config.seed)
    reward_fn = per_family_reward_fn(
        {
            names[f.pool_version]: verifier_reward_fn(specs[f.verifier_version])
            for f in spec.families
        }
    )
    return Inputs(
        sampler,
        reward_fn,
        _eval_items(sampler, config, names),
        {names[f.pool_version]: Source(f.pool_version, f.verifier_version) for f in spec.families},
    )


def _eval_items(
    sampler: CurriculumSampler, config: cfg.ExperimentConfig, names: dict[int, str]
) -> list[Item]:
    """The first ``max_tasks`` held-out tasks of each evaluated family, in pool order."""
    if not config.eval.every:
        return []
    return [
        sampler.item(task, names[version])
        for version in config.eval.families
        for task in pinning.version_tasks(version, pinning.HELD_OUT, config.eval.max_tasks)
    ]
