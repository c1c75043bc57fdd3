"""What a training job records, through the engine's plain interfaces, into the database.

- ``RunRecorder`` is the engine's metrics sink, rollout sink and control at once: each step's
  metrics go in one idempotent batch (``metrics.record_points``), a bounded number of its
  completions become ``Rollout`` rows, and between steps it reads the cancel and pause
  flags, hands over curriculum changes made meanwhile, moves the run's step, heartbeat and
  summary (the last value of every metric), charges the step's usage, pauses a run that
  went over its budget and checks the reward-hacking and drift signals (``health.check``).
- ``RunCheckpoints`` keeps checkpoints under the run's folder and a ``Checkpoint`` row per
  complete one; ``latest()`` is the newest row whose files are still there.
- ``RunLog`` is a logging handler: the whole log in the run's folder, the last lines on the row.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from training import metric_catalogue as metric
from training.interfaces import Completion, DirectoryStore

from ..models import Checkpoint, Rollout, Run
from . import control, health, runs
from . import metrics as metric_points
from .usage import UsageMeter, budget_problem

logger = logging.getLogger(__name__)
TAIL_SAVE_INTERVAL_S = 2.0
"""How often relayed lines (of a run's other processes) refresh the row's log tail."""
LAYER_DETAIL_CHARS = 2_000
"""A layer's detail (a test's output, a traceback) is cut to this on a stored rollout."""


def run_dir(run: Run) -> Path:
    return Path(settings.RUNS_DIR) / str(run.pk)


@dataclass(frozen=True)
class Source:
    """Where a family's rewards come from, recorded on each of its rollouts."""

    pool_version: int
    verifier_version: int


class RunRecorder:
    """MetricsSink, RolloutSink and Control over one attempt of one run."""

    def __init__(
        self,
        run: Run,
        *,
        rollout_groups: int,
        sources: Mapping[str, Source],
        log: RunLog | None = None,
        extra_metrics: Callable[[], Mapping[str, float]] | None = None,
        meter: UsageMeter | None = None,
    ) -> None:
        self.run = run
        self.meter = meter
        self.extra_metrics = extra_metrics
        """Read at each step and recorded with the engine's (the curriculum's distribution)."""
        self.rollout_groups = rollout_groups
        self.sources = dict(sources)
        self.log_handler = log
        self.summary: dict[str, float | None] = dict(run.summary or {})
        self.lost = False

    # --- MetricsSink -----------------------------------------------------------------------

    def log(self, step: int, metrics: dict[str, float]) -> None:
        if self.extra_metrics is not None:
            metrics = {**metrics, **self.extra_metrics()}
        points = metric_points.points_from_metrics(step, metrics)
        metric_points.record_points(self.run, points)
        self.summary.update({p.key: p.value for p in points})
        logger.info("step %d/%d %s", step, self.run.max_steps, _headline(metrics))

    # --- RolloutSink -----------------------------------------------------------------------

    def rollouts(self, step: int, completions: Sequence[Completion]) -> None:
        if self.meter is not None:
            self.meter.completions(completions)
        rows = [self._rollout(step, c) for c in completions if c.group < self.rollout_groups]
        if rows:
            Rollout.objects.bulk_create(
                rows,
                update_conflicts=True,
                unique_fields=["run", "step", "group", "sample"],
                update_fields=ROLLOUT_FIELDS,
            )

    def _rollout(self, step: int, c: Completion) -> Rollout:
        source = self.sources.get(c.item.family)
        details = c.result.details or {}
        return Rollout(
            run=self.run,
            step=step,
            group=c.group,
            sample=c.sample,
            family=c.item.family,
            difficulty=c.item.difficulty,
            task_hash=getattr(c.item, "task_hash", ""),
            pool_version=source.pool_version if source else None,
            verifier_version=source.verifier_version if source else None,
            prompt=storable(c.item.prompt),
            completion=storable(c.text),
            passed=bool(c.result.passed),
            reward=_finite(c.result.reward),
            parts={k: _finite(v) for k, v in c.result.parts.items()},
            advantage=_finite(c.advantage),
            error_type=(c.result.error_type or "")[:40],
            layers=storable([_short_layer(layer) for layer in details.get("layers", [])]),
            messages=storable(episode_messages(details.get("episode"))),
        )

    # --- Control ---------------------------------------------------------------------------

    def should_stop(self) -> bool:
        return self.lost or runs.should_stop(self.run)

    def checkpoint_on_stop(self) -> bool:
        return not self.lost and runs.pausing(self.run)

    def pending_changes(self, step: int) -> list[dict[str, Any]]:
        return [] if self.lost else control.pending_changes(self.run, step)

    def progress(self, step: int, total: int, metrics: dict[str, float]) -> None:
        held = runs.heartbeat(self.run, step=step, summary=self.summary)
        if not held:
            logger.warning("run.lost", extra={"run_id": self.run.pk, "step": step})
            self.lost = True
            return
        if self.log_handler is not None:
            self.log_handler.save_tail()
        self.charge(metrics)
        health.check(self.run, step, last=step >= total)

    def charge(self, metrics: Mapping[str, float] | None = None) -> None:
        """Charge the usage since the last charge; a run now over its budget pauses."""
        if self.meter is None or self.lost:
            return
        self.meter.charge(metrics)
        current = Run.objects.get(pk=self.run.pk)
        problem = budget_problem(current)
        if problem:
            control.over_budget(current, problem)


ROLLOUT_FIELDS = [
    "family",
    "difficulty",
    "task_hash",
    "pool_version",
    "verifier_version",
    "prompt",
    "completion",
    "passed",
    "reward",
    "parts",
    "advantage",
    "error_type",
    "layers",
    "messages",
]


def _headline(metrics: Mapping[str, float]) -> str:
    keys = (metric.REWARD_MEAN, metric.SUCCESS, metric.LOSS_SFT, metric.KL, metric.STEP_S)
    return " ".join(f"{k}={metrics[k]:.4g}" for k in keys if k in metrics)


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _short_layer(layer: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(layer)
    if isinstance(out.get("detail"), str):
        out["detail"] = out["detail"][:LAYER_DETAIL_CHARS]
    if isinstance(out.get("score"), float) and not math.isfinite(out["score"]):
        out["score"] = None
    return out


class RunCheckpoints:
    """The engine's CheckpointStore under ``<run folder>/checkpoints``, with a row per
    complete checkpoint. Only the newest ``keep`` stay on disk, and their rows with them."""

    def __init__(self, run: Run, keep: int | None = None) -> None:
        self.run = run
        self.root = run_dir(run) / "checkpoints"
        self.directories = DirectoryStore(self.root, keep=keep or settings.RUN_CHECKPOINTS_KEEP)

    def new_dir(self, step: int) -> Path:
        return self.directories.new_dir(step)

    def saved(self, step: int, path: Path, metrics: dict[str, float]) -> None:
        self.directories.saved(step, path, metrics)
        final = self.root / f"step-{step:06d}"
        Checkpoint.objects.update_or_create(
            run=self.run,
            step=step,
            defaults={
                "path": str(final),
                "metrics": {k: _finite(v) for k, v in metrics.items()},
                "size_bytes": _size(final),
            },
        )
        gone = [c.pk for c in self.run.checkpoints.all() if not Path(c.path).exists()]
        Checkpoint.objects.filter(pk__in=gone).delete()
        logger.info("checkpoint %d saved (%s)", step, final.name)

    def latest(self) -> Path | None:
        for checkpoint in self.run.checkpoints.order_by("-step"):
            path = Path(checkpoint.path)
            if (path / "state.json").is_file():
                return path
        return None

    def latest_step(self) -> int:
        path = self.latest()
        return int(path.name.removeprefix("step-")) if path is not None else 0


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


class RunLog(logging.Handler):
    """Every record to ``<run folder>/log.txt``; the last lines kept for the run's row."""

    FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

    def __init__(self, run: Run, lines: int | None = None) -> None:
        super().__init__(level=logging.INFO)
        self.run = run
        self.lines: deque[str] = deque(maxlen=lines or settings.RUN_LOG_TAIL_LINES)
        self.path = run_dir(run) / "log.txt"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = self.path.open("a", encoding="utf-8")
        self.setFormatter(logging.Formatter(self.FORMAT))
        self.saved_at = time.monotonic()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # noqa: BLE001 - a bad log call must not stop training
            self.handleError(record)
            return
        self.lines.extend(text.splitlines() or [""])
        self.file.write(text + "\n")
        self.file.flush()

    def write_line(self, text: str) -> None:
        """A line as is (another process's output, already formatted), to the log and tail;
        the tail reaches the row every few seconds meanwhile."""
        self.lines.append(text)
        self.file.write(text + "\n")
        self.file.flush()
        now = time.monotonic()
        if now - self.saved_at >= TAIL_SAVE_INTERVAL_S:
            self.saved_at = now
            self.save_tail()

    def tail(self) -> str:
        return "\n".join(self.lines)

    def save_tail(self) -> None:
        Run.objects.filter(runs.held(self.run)).update(log_tail=self.tail())

    def __enter__(self) -> RunLog:
        logging.getLogger().addHandler(self)
        logging.captureWarnings(True)
        # A worker started with `-l WARNING` would drop the run's own INFO lines (its steps,
        # checkpoints) before they reach this handler.
        self.levels = {name: logging.getLogger(name).level for name in RUN_LOGGERS}
        for name in RUN_LOGGERS:
            logging.getLogger(name).setLevel(logging.INFO)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)
        logging.getLogger().removeHandler(self)
        self.file.close()
        self.close()


RUN_LOGGERS = ("experiments", "training", "tasks_app")


def episode_messages(episode: Mapping[str, Any] | None) -> list[dict[str, Any]] | None:
    """An episode's conversation as a rollout stores it (``Rollout.messages``), in the shape
    the playground answers: each assistant message carries its turn's verdict as
    ``verdict: {"error": ..., "info": {}}`` (error None when the turn was fine; the engine
    keeps no per-turn notes); None for a single response."""
    if not episode:
        return None
    errors = iter(episode.get("errors") or [])
    return [
        {**message, "verdict": {"error": next(errors, None), "info": {}}}
        if message.get("role") == "assistant"
        else message
        for message in episode.get("messages") or []
    ]


def storable(value: Any) -> Any:
    """``value`` with NUL characters shown as U+FFFD: a model can emit them (a byte-level
    tokenizer has a token for 0x00) but PostgreSQL text and jsonb cannot hold them."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [storable(v) for v in value]
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    return value
