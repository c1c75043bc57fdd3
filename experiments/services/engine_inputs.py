"""What the engine takes from the platform for one run, built from its pinned configuration.

A curriculum sampler over the pinned versions' train splits, one verifier per family, the
held-out items evaluated during training and each family's reward source. Training builds
them for a run; a pre-flight builds the same for the configuration it samples, so both judge
with the same reward function.
"""

from __future__ import annotations

from dataclasses import dataclass

from crucible.accounts.models import Team
from tasks_app.services import pinning
from training.interfaces import Item, RewardFn

from .. import config as cfg
from ..adapters import CurriculumSampler, per_family_reward_fn, verifier_reward_fn
from .recording import Source


@dataclass
class Inputs:
    """What the engine takes from the platform for one run."""

    sampler: CurriculumSampler
    reward_fn: RewardFn
    eval_items: list[Item]
    sources: dict[str, Source]


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
