"""What the engine takes from the platform for one run, built from its pinned configuration.

A curriculum sampler over the pinned versions' train splits, one verifier per family, the
held-out items evaluated during training and each family's reward source. Training builds
them for a run; a pre-flight builds the same for the configuration it samples, so both judge
with the same reward function.

When the pinned versions' families are played as environments (``TaskFamily.environment``),
the inputs carry the engine's ``EnvironmentSpec`` too (``experiments.episode_adapters``): each
item is played as an episode of its family's environment kind, within the family's limits, and
judged on its final state by the pinned verifier. ``environment_problems`` says, naming the
field, what a configuration on such families asks that the engine refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crucible.accounts.models import Team
from tasks_app.environments.family_config import limits_of
from tasks_app.services import pinning
from tasks_app.services.environments import environment_module
from training.engine import check_environment
from training.episodes import EnvironmentSpec
from training.interfaces import Item, RewardFn

from .. import config as cfg
from ..adapters import CurriculumSampler, per_family_reward_fn, verifier_reward_fn
from ..episode_adapters import EpisodeFamily, check_families, environment_spec, turn_limits
from .recording import Source


@dataclass
class Inputs:
    """What the engine takes from the platform for one run."""

    sampler: CurriculumSampler
    reward_fn: RewardFn
    eval_items: list[Item]
    sources: dict[str, Source]
    environment: EnvironmentSpec | None = None
    """Set when the families are played as environments: the run trains on episodes."""


def build_inputs(team: Team, config: cfg.ExperimentConfig) -> Inputs:
    """Sampler, per-family reward, held-out items and reward sources of the pinned versions."""
    spec = config.curriculum
    pinned = pinning.pinned_versions(team, config.pool_versions)
    specs = pinning.verifier_specs(team, [f.verifier_version for f in spec.families])
    gone = [v for v in config.pool_versions if v not in pinned]
    if gone:
        raise LookupError(f"pool versions {gone} are no longer available to the team")
    missing = [f.verifier_version for f in spec.families if f.verifier_version not in specs]
    if missing:
        raise LookupError(f"verifier versions {missing} are no longer available to the team")
    names = {f.pool_version: pinned[f.pool_version].family for f in spec.families}
    # The configuration was checked when it was saved, its levels pinned: the policy is built
    # from it as it is.
    policy = spec.policy(names)
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
        _environment(config, pinned, specs),
    )


def _environment(
    config: cfg.ExperimentConfig,
    pinned: dict[int, pinning.PinnedVersion],
    specs: dict[int, dict[str, Any]],
) -> EnvironmentSpec | None:
    """The engine's episode inputs when the families are played as environments, else None;
    ValueError naming the field when they cannot train together."""
    families = config.curriculum.families
    entries = [
        (pinned[f.pool_version].family, pinned[f.pool_version].environment) for f in families
    ]
    problems = check_families(entries)
    if problems:
        raise ValueError("; ".join(f"{path}: {why}" for path, why in problems))
    if not any(env for _, env in entries):
        return None
    by_family = {}
    for f in families:
        version = pinned[f.pool_version]
        assert version.environment is not None  # check_families: all or none
        by_family[version.family] = EpisodeFamily(
            kind=version.kind,
            environment=environment_module(version.environment["kind"]),
            spec=specs[f.verifier_version],
            limits=limits_of(version.environment),
        )
    return environment_spec(by_family)


def environment_problems(team: Team, config: cfg.ExperimentConfig) -> list[tuple[str, str]]:
    """What a configuration asks of its families' environments that a run cannot do, as
    (field, reason) under ``config``: a mix of single-turn and episode families, episode
    families with different limits, or engine settings that cannot train on episodes
    (an algorithm without groups, such as PPO; asynchronous verification; the vLLM backend)."""
    families = config.curriculum.families
    pinned = pinning.pinned_versions(team, config.pool_versions)
    entries = [
        (pinned[f.pool_version].family, pinned[f.pool_version].environment)
        for f in families
        if f.pool_version in pinned
    ]
    problems = check_families(entries, where="config.curriculum.families")
    if problems or not any(env for _, env in entries):
        return problems
    limits = limits_of(next(env for _, env in entries if env))
    probe = EnvironmentSpec(make=_unused, reward_fn=_unused, limits=turn_limits(limits))
    try:
        check_environment(config.engine_config(), probe)
    except ValueError as exc:
        name, _, why = str(exc).partition(": ")
        path = "config.algorithm" if name == "algorithm" else f"config.hyperparameters.{name}"
        played = next(slug for slug, env in entries if env)
        return [(path, f"{why} ({played!r} is played as an environment)")]
    return []


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


def _unused(*args: Any) -> Any:
    """The engine's check reads a spec's limits only."""
    raise AssertionError("a probe spec is never played")
