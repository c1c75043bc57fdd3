"""The engine's plain interfaces implemented over the platform's pieces.

``training`` knows nothing of task families or verifiers: it takes items with an opaque
payload and a reward function. Here a pool task becomes an ``Item`` whose payload is the
task's ``expected`` data, and a verifier spec becomes the reward function.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tasks_app.curriculum import Curriculum, CurriculumConfig, TaskPicker
from tasks_app.families.base import Task
from tasks_app.verifiers import build_verifier
from tasks_app.verifiers.layers.base import SHARE_TESTS
from training import metric_catalogue as metric
from training.interfaces import Item, RewardFn, RewardResult


@dataclass(frozen=True)
class PoolItem(Item):
    """An item that remembers the pool task it came from, so every reward traces back to it."""

    task_hash: str = ""
    """The task's content hash within its pool version."""


def item_for(task: Task, family: str | None = None) -> Item:
    """``family`` names the family as the curriculum knows it (its slug); default: the kind."""
    return Item(
        prompt=task.prompt,
        payload=task.expected,
        family=family or task.family,
        difficulty=task.difficulty,
    )


def pool_item(task: Task, family: str, content_hash: str) -> PoolItem:
    return PoolItem(
        prompt=task.prompt,
        payload=task.expected,
        family=family,
        difficulty=task.difficulty,
        task_hash=content_hash,
    )


def verifier_reward_fn(spec: dict[str, Any]) -> RewardFn:
    """Judge each completion with the layered verifier; its reward and parts become the result,
    and its layers (each with its score and error type) the result's details."""
    verifier = build_verifier(spec)

    def reward_fn(items: Sequence[Item], completions: Sequence[str]) -> list[RewardResult]:
        results = []
        for item, completion in zip(items, completions, strict=True):
            started = time.perf_counter()
            context = {"prompt": item.prompt, SHARE_TESTS: True}  # a group's samples in a row
            verdict = verifier.judge(completion, item.payload or {}, context)
            error = None if verdict.passed else str(verdict.error_type)
            details = {
                "error_type": str(verdict.error_type),
                "extracted": verdict.extracted,
                "layers": [layer.to_dict() for layer in verdict.layers],
                "seconds": time.perf_counter() - started,  # the verifier's latency
            }
            results.append(
                RewardResult(verdict.reward, verdict.passed, dict(verdict.parts), error, details)
            )
        return results

    return reward_fn


def per_family_reward_fn(by_family: Mapping[str, RewardFn]) -> RewardFn:
    """One reward function per family (its own verifier), chosen by ``Item.family``."""

    def reward_fn(items: Sequence[Item], completions: Sequence[str]) -> list[RewardResult]:
        rows: dict[str, list[int]] = defaultdict(list)
        for row, item in enumerate(items):
            rows[item.family].append(row)
        results: list[RewardResult | None] = [None] * len(items)
        for family, indices in rows.items():
            if family not in by_family:
                raise KeyError(f"no verifier for family {family!r}")
            judged = by_family[family](
                [items[i] for i in indices], [completions[i] for i in indices]
            )
            for i, result in zip(indices, judged, strict=True):
                results[i] = result
        return [r for r in results if r is not None]

    return reward_fn


class CurriculumSampler:
    """The engine's ``TaskSampler`` over pool tasks, steered by a curriculum policy.

    ``tasks`` are (family, level, split, task) entries of the pinned versions; only the
    train split is ever drawn (``TaskPicker`` enforces it), so held-out tasks stay unseen.
    Each completion's verdict feeds the policy, whose state (with the RNG) goes into every
    checkpoint so a resumed run samples exactly what the uninterrupted one would have.
    """

    def __init__(
        self, config: CurriculumConfig, tasks: Iterable[tuple[str, int, str, Task]], seed: int = 0
    ) -> None:
        self.curriculum = Curriculum(config)
        self.picker: TaskPicker[Task] = TaskPicker(tasks)
        self.rng = random.Random(seed)

    def sample(self, n: int) -> list[Item]:
        pairs = self.curriculum.sample(n, self.rng)
        tasks = self.picker.batch(pairs, self.rng)
        return [self.item(task, family) for (family, _), task in zip(pairs, tasks, strict=True)]

    def item(self, task: Task, family: str) -> Item:
        """The engine's item for a drawn task; a task that carries its pool content hash in
        ``meta["content_hash"]`` becomes a ``PoolItem`` that keeps it."""
        content_hash = task.meta.get("content_hash")
        return pool_item(task, family, content_hash) if content_hash else item_for(task, family)

    def apply(self, change: dict[str, Any]) -> None:
        """A change made while the run trains (``Curriculum.apply``); kept in the state."""
        self.curriculum.apply(change)

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        self.curriculum.observe_many(
            (item.family, item.difficulty, bool(result.passed))
            for item, result in zip(items, results, strict=True)
        )

    def metrics(self) -> dict[str, float]:
        """The policy's state for the run page: each family's sampling probability per level
        (``curriculum/<family>/d<level>``) and its rolling success rate."""
        out: dict[str, float] = {}
        for family in self.curriculum.distributions:
            for level, p in self.curriculum.distribution(family).items():
                out[metric.CURRICULUM_LEVEL.format(family=family, difficulty=level)] = p
            rate = self.curriculum.success_rate(family)
            if rate is not None:
                out[metric.CURRICULUM_ROLLING_SUCCESS.format(family=family)] = rate
        return out

    def state_dict(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"curriculum": self.curriculum.state_dict(), "rng": [version, list(internal), gauss]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.curriculum.load_state_dict(state["curriculum"])
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
