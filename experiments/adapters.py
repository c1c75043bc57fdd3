"""The engine's plain interfaces implemented over the platform's pieces.

``training`` knows nothing of task families or verifiers: it takes items with an opaque
payload and a reward function. Here a pool task becomes an ``Item`` whose payload is the
task's ``expected`` data, and a verifier spec becomes the reward function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tasks_app.families.base import Task
from tasks_app.verifiers import build_verifier
from training.interfaces import Item, RewardFn, RewardResult


def item_for(task: Task) -> Item:
    return Item(
        prompt=task.prompt, payload=task.expected, family=task.family, difficulty=task.difficulty
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
