"""What the engine takes from outside, as plain protocols, plus small in-memory versions.

The experiments app implements these over the database; the CLI, demo and tests use the
simple implementations here.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Item:
    """One task instance: what the model sees and what the reward function needs."""

    prompt: str
    payload: Any = None
    """Opaque to the engine, passed to the reward function (the platform puts a task dict here)."""
    family: str = "default"
    difficulty: int = 0
    answer: str | None = None
    """A reference completion, used by SFT; RL algorithms ignore it."""


@dataclass
class RewardResult:
    reward: float | None
    """None means unscorable (the engine substitutes `unscorable_reward`)."""
    passed: bool = False
    parts: dict[str, float] = field(default_factory=dict)
    error_type: str | None = None
    details: dict[str, Any] | None = None
    """Optional JSON-able detail of the verdict (e.g. a layered verifier's layers), passed
    through to the rollout sink untouched. A `layers` list of `{stage, kind, passed, skipped}`
    dicts is also read for `verdicts/judge_flip_rate` (`training.metrics.judge_flip_rate`)."""


@runtime_checkable
class TaskSampler(Protocol):
    def sample(self, n: int) -> list[Item]: ...

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        """Called after verification with one entry per completion, for curricula."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


@runtime_checkable
class SteerableSampler(TaskSampler, Protocol):
    """A sampler whose plan can change while the run trains (a curriculum edited mid-run)."""

    def apply(self, change: dict[str, Any]) -> None:
        """Apply `change` (JSON-able, the sampler's own format) before the next draw; it must
        reach `state_dict`, so a resumed run samples under it. ValueError when it is invalid."""


RewardFn = Callable[[Sequence[Item], Sequence[str]], list[RewardResult]]
"""`reward_fn(items, completions) -> results`, one result per completion."""


@runtime_checkable
class MetricsSink(Protocol):
    def log(self, step: int, metrics: dict[str, float]) -> None: ...


@dataclass(frozen=True)
class Completion:
    """One sampled completion of a step, as the rollout sink receives it."""

    item: Item
    text: str
    result: RewardResult
    group: int
    """Index of its prompt within this process's share of the step (its GRPO group)."""
    sample: int
    """Index within the group (0 .. G-1)."""
    advantage: float | None
    """The advantage it was trained with (the mean over its tokens for PPO); None when the
    algorithm has none (rejection sampling)."""
    tokens: int = 0
    """Its length in generated tokens."""


@runtime_checkable
class RolloutSink(Protocol):
    def rollouts(self, step: int, completions: Sequence[Completion]) -> None:
        """Called on the main process after each RL step with that process's completions."""


@runtime_checkable
class Control(Protocol):
    """How a worker steers a run: stopping, progress, and changes made while it trains.

    The engine asks between steps, on the main process only; every process gets its answer.
    """

    def should_stop(self) -> bool: ...

    def checkpoint_on_stop(self) -> bool:
        """Whether a stop saves a checkpoint first: yes for a pause (it resumes from there),
        no for a cancel or for an attempt that lost its run to another worker."""

    def pending_changes(self, step: int) -> list[dict[str, Any]]:
        """Changes to hand to the sampler (`SteerableSampler.apply`) before step `step + 1`;
        what is returned counts as applied after step `step`."""

    def progress(self, step: int, total: int, metrics: dict[str, float]) -> None: ...


@runtime_checkable
class CheckpointStore(Protocol):
    def new_dir(self, step: int) -> Path:
        """An empty directory the engine writes checkpoint `step` into."""

    def saved(self, step: int, path: Path, metrics: dict[str, float]) -> None:
        """Called once the checkpoint at `path` is complete."""

    def latest(self) -> Path | None:
        """The newest complete checkpoint, or None."""


class ListSampler:
    """Draws items uniformly (with replacement) from a fixed list; seeded and resumable."""

    def __init__(self, items: Sequence[Item], seed: int = 0) -> None:
        self.items = list(items)
        self.rng = random.Random(seed)

    def sample(self, n: int) -> list[Item]:
        return [self.rng.choice(self.items) for _ in range(n)]

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        return {"rng": self.rng.getstate()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))


class MemorySink:
    """Keeps every logged row; `stop_after` makes `should_stop` true after that step (with a
    checkpoint first when `save_on_stop`); `changes[step]` are handed out after `step`."""

    def __init__(
        self,
        stop_after: int | None = None,
        *,
        save_on_stop: bool = False,
        changes: dict[int, list[dict[str, Any]]] | None = None,
    ) -> None:
        self.rows: list[tuple[int, dict[str, float]]] = []
        self.stop_after = stop_after
        self.save_on_stop = save_on_stop
        self.changes = dict(changes or {})

    def log(self, step: int, metrics: dict[str, float]) -> None:
        self.rows.append((step, dict(metrics)))

    def should_stop(self) -> bool:
        return (
            self.stop_after is not None and bool(self.rows) and self.rows[-1][0] >= self.stop_after
        )

    def checkpoint_on_stop(self) -> bool:
        return self.save_on_stop

    def pending_changes(self, step: int) -> list[dict[str, Any]]:
        return self.changes.pop(step, [])

    def progress(self, step: int, total: int, metrics: dict[str, float]) -> None:
        pass


class JsonlSink:
    """Appends one JSON object per step to a file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def log(self, step: int, metrics: dict[str, float]) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps({"step": step, **metrics}) + "\n")


class DirectoryStore:
    """Checkpoints as `root/step-000042/`; keeps the newest `keep` of them."""

    def __init__(self, root: str | Path, keep: int = 2) -> None:
        self.root = Path(root)
        self.keep = keep

    def new_dir(self, step: int) -> Path:
        path = self.root / f"step-{step:06d}.partial"
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return path

    def saved(self, step: int, path: Path, metrics: dict[str, float]) -> None:
        final = self.root / f"step-{step:06d}"
        shutil.rmtree(final, ignore_errors=True)
        path.rename(final)  # a rename is atomic: a crash never leaves a half checkpoint "latest"
        for old in self._complete()[: -self.keep]:
            shutil.rmtree(old)

    def latest(self) -> Path | None:
        complete = self._complete()
        return complete[-1] if complete else None

    def _complete(self) -> list[Path]:
        if not self.root.exists():
            return []
        return sorted(p for p in self.root.glob("step-*") if not p.name.endswith(".partial"))
