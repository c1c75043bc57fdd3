"""The training job: one attempt at one run, from its claim to a final state.

It builds the engine's inputs from the experiment's pinned configuration (a curriculum
sampler over the pinned versions' train splits, one verifier per family, the held-out sets,
the model from this worker's catalogue; the families' environments when they are played as
such, so the run trains on episodes), resumes from the run's latest checkpoint, and calls
``training.train`` with the database-backed sink, store and control. Whatever happens, the
run does not stay "running": it succeeds, is cancelled, fails with the reason and its last
log lines, or (when the worker shuts down, or its database connection drops) goes back to the
queue to resume from its last checkpoint, as when its worker dies. A run that succeeds is
announced through ``run_hooks`` (evaluation queues its final checkpoint on the experiment's
suite there).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection

from training.engine import train

from .. import catalogue, launch, memory
from .. import config as cfg
from ..models import Run, RunState
from . import run_hooks, runs, workers
from .engine_inputs import build_inputs
from .failures import failure_reason
from .recording import RunCheckpoints, RunLog, RunRecorder
from .usage import UsageMeter

logger = logging.getLogger(__name__)


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
                    run_hooks.run_succeeded(run)


def retry_or_fail(run: Run, exc: DatabaseError, log: RunLog) -> None:
    """A transient database error (a dropped connection, a restarting server): the run goes
    back to the queue to resume from its last checkpoint, at most ``RUN_DATABASE_RETRIES``
    times, so a database that stays broken still ends the run."""
    # The broken connection would fail every later query of this worker: open a new one.
    with contextlib.suppress(DatabaseError):
        connection.close()
    if run.database_retries >= settings.RUN_DATABASE_RETRIES:
        logger.exception(
            "run %s failed: database error after %d retries", run.pk, run.database_retries
        )
        runs.fail(run, failure_reason(exc), log_tail=log.tail())
        return
    logger.warning("run %s handed back after a database error: %s", run.pk, exc)
    runs.requeue(run, log_tail=log.tail(), database_retry=True)


def attempt(run: Run, log: RunLog) -> str | None:
    """Train this attempt to the end; the final state, or None when the run was taken away."""
    if run.cancel_requested:
        return RunState.CANCELLED
    config = cfg.stored(run.experiment.config)
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
        gpus=workers.devices()["cuda"],
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
    return train_here(run, cfg.stored(run.experiment.config), None)


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
            prompt_format=config.format,
            environment=inputs.environment,
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
