"""The engine's plain interfaces implemented over the platform's pieces.

``training`` knows nothing of task families or verifiers: it takes items with an opaque
payload and a reward function. Here a pool task becomes an ``Item`` whose payload is the
task's ``expected`` data, and a verifier spec becomes the reward function.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from tasks_app.curriculum import Curriculum, CurriculumConfig, TaskPicker
from tasks_app.families.base import Task
from tasks_app.verifiers import build_verifier
from training.interfaces import Item, RewardFn, RewardResult


def item_for(task: Task, family: str | None = None) -> Item:
    """``family`` names the family as the curriculum knows it (its slug); default: the kind."""
    return Item(
        prompt=task.prompt,
        payload=task.expected,
        family=family or task.family,
        difficulty=task.difficulty,
    )


def verifier_reward_fn(spec: dict[str, Any]) -> RewardFn:
    """Judge each completion with the layered verifier; its reward and parts become the result."""
    verifier = build_verifier(spec)

    def reward_fn(items: Sequence[Item], completions: Sequence[str]) -> list[RewardResult]:
        results = []
        for item, completion in zip(items, completions, strict=True):
            verdict = verifier.judge(completion, item.payload or {}, {"prompt": item.prompt})
            error = None if verdict.passed else str(verdict.error_type)
            results.append(RewardResult(verdict.reward, verdict.passed, dict(verdict.parts), error))
        return results

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
        return [item_for(task, family) for (family, _), task in zip(pairs, tasks, strict=True)]

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        self.curriculum.observe_many(
            (item.family, item.difficulty, bool(result.passed))
            for item, result in zip(items, results, strict=True)
        )

    def state_dict(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"curriculum": self.curriculum.state_dict(), "rng": [version, list(internal), gauss]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.curriculum.load_state_dict(state["curriculum"])
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
