"""A run on episodes: the platform's environments and verifiers as the engine's episode inputs.

Pure Python: no Django import. A family whose ``environment`` is set (see
``tasks_app.environments.family_config``) trains on episodes: for each of its items the engine
opens a fresh environment of the family's kind (``EpisodeEnvironment`` over the platform's
``Environment``, messages in the chat shape), and a finished episode is judged by the family's
pinned verifier on its final state, per-turn parts included (``judge_episode``), as the
playground judges one. Families of one run share the engine's one set of turn limits, so a
curriculum may not mix single-turn families with episode families, nor episode families with
different limits: ``check_families`` says so, naming the field.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

from tasks_app.environments.base import Environment, EpisodeLimits, Message
from tasks_app.environments.judging import judge_episode
from tasks_app.families.base import Task
from tasks_app.verifiers.layers.base import SHARE_TESTS
from training.episodes import (
    EnvironmentSpec,
    EnvTurn,
    EpisodeRecord,
    EpisodeRewardFn,
    TurnLimits,
)
from training.interfaces import Item, RewardResult


@dataclass(frozen=True)
class EpisodeFamily:
    """One family of a run trained on episodes."""

    kind: str
    """The family's kind (what ``Task.family`` names; its environment plays it)."""
    environment: ModuleType
    """The environment kind's module (from the registry)."""
    spec: dict[str, Any]
    """The pinned verifier version's spec: it judges the final state."""
    limits: EpisodeLimits


class PlatformEpisode:
    """The engine's ``EpisodeEnvironment`` over one platform ``Environment`` and task."""

    def __init__(self, env: Environment, task: Task) -> None:
        self.env, self.task = env, task

    def open(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        opening = self.env.reset(self.task)
        return [m.to_dict() for m in opening.messages], [t.to_dict() for t in opening.tools]

    def reply(self, text: str) -> EnvTurn:
        result = self.env.step(Message("assistant", text))
        return EnvTurn(
            [m.to_dict() for m in result.messages], result.done, result.error, result.info
        )

    def final_state(self) -> dict[str, Any]:
        return self.env.final_state()


def check_families(
    families: Sequence[tuple[str, Mapping[str, Any] | None]], where: str = "curriculum.families"
) -> list[tuple[str, str]]:
    """Problems, as (field, reason), with the families' environments (``(slug, stored
    environment or None)`` in curriculum order) for one run: all single-turn or all episodes
    with the same limits."""
    played = [(i, slug, env) for i, (slug, env) in enumerate(families) if env]
    if not played or len(played) == len(families):
        limits = {tuple(sorted(env["limits"].items())) for _, _, env in played}
        if len(limits) <= 1:
            return []
        names = ", ".join(slug for _, slug, _ in played)
        return [(where, f"the episode families of one run share their limits ({names} differ)")]
    single = next(i for i, (_, env) in enumerate(families) if not env)
    return [
        (
            f"{where}[{single}]",
            f"{families[single][0]!r} is single-turn and {played[0][1]!r} is played as an "
            "environment: one run trains on episodes or on single responses, not both",
        )
    ]


def environment_spec(families: Mapping[str, EpisodeFamily]) -> EnvironmentSpec:
    """The engine's ``EnvironmentSpec`` for ``families`` (by slug, the items' ``family``),
    which ``check_families`` has passed."""
    first = next(iter(families.values()))

    def make(item: Item) -> PlatformEpisode:
        family = families[item.family]
        env = family.environment.make({})
        task = Task(family.kind, item.prompt, dict(item.payload or {}), item.difficulty)
        return PlatformEpisode(env, task)

    return EnvironmentSpec(
        make, episode_reward_fn({s: f.spec for s, f in families.items()}), turn_limits(first.limits)
    )


def turn_limits(limits: EpisodeLimits) -> TurnLimits:
    return TurnLimits(**asdict(limits))


def episode_reward_fn(specs: Mapping[str, dict[str, Any]]) -> EpisodeRewardFn:
    """Judge each finished episode with its family's verifier (``judge_episode``); the
    result's details carry the verdict's layers, as a single-turn verdict's do."""

    def reward_fn(items: Sequence[Item], episodes: Sequence[EpisodeRecord]) -> list[RewardResult]:
        results = []
        for item, episode in zip(items, episodes, strict=True):
            if item.family not in specs:
                raise KeyError(f"no verifier for family {item.family!r}")
            started = time.perf_counter()
            context = {"prompt": item.prompt, SHARE_TESTS: True}
            verdict = judge_episode(
                specs[item.family],
                episode.final_state,
                episode.errors,
                item.payload or {},
                context=context,
            )
            details = {
                "error_type": str(verdict.error_type),
                "extracted": verdict.extracted,
                "layers": [layer.to_dict() for layer in verdict.layers],
                "seconds": time.perf_counter() - started,
            }
            error = None if verdict.passed else str(verdict.error_type)
            results.append(
                RewardResult(verdict.reward, verdict.passed, dict(verdict.parts), error, details)
            )
        return results

    return reward_fn
