"""Curricula over pinned pool versions: validation, edits with revisions, policy preview.

Stored config (JSON)::

    {"families": [{"version": <pool version id>, "weight": 1.0, "levels": [1, 2, 3],
                   "initial": [0.6, 0.3, 0.1]}],
     "band": [0.3, 0.7], "floor": 0.05, "window": 64, "step": 0.2, "dynamic": true}

Families are named by their slug inside the pure policy; held-out tasks are never sampled
because the training sampler only draws from a version's train split.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet

from crucible.accounts.models import Team
from crucible.accounts.services import record
from tasks_app import curriculum as policy
from tasks_app.models import Curriculum, PoolVersion

from .errors import field_errors

POLICY_KEYS = {"band", "floor", "window", "step", "dynamic"}
FAMILY_KEYS = {"version", "weight", "levels", "initial"}
MAX_PREVIEW_STEPS = 2_000


def resolve(
    config: Any, versions: QuerySet[PoolVersion]
) -> tuple[policy.CurriculumConfig, dict[str, PoolVersion]]:
    """The pure policy config for ``config``; a 400 naming the field on any problem."""
    if not isinstance(config, dict):
        raise field_errors([("config", "must be an object")])
    unknown = sorted(set(config) - POLICY_KEYS - {"families"})
    if unknown:
        raise field_errors([(f"config.{k}", "unknown field") for k in unknown])
    families = config.get("families")
    if not isinstance(families, list) or not families:
        raise field_errors([("config.families", "must be a non-empty list")])
    policy_errors = _policy_errors(config)
    if policy_errors:
        raise field_errors(policy_errors)
    pinned: dict[str, PoolVersion] = {}
    entries = [_family_entry(i, item, versions, pinned) for i, item in enumerate(families)]
    try:
        return policy.CurriculumConfig.from_dict(
            {**{k: config[k] for k in POLICY_KEYS if k in config}, "families": entries}
        ), pinned
    except (TypeError, ValueError) as exc:
        raise field_errors([("config", str(exc))]) from exc


def _policy_errors(config: dict[str, Any]) -> list[tuple[str, str]]:
    """Field-named checks of the policy knobs (the pure config re-checks them all)."""
    errors = []
    band = config.get("band", [0.3, 0.7])
    if not (
        isinstance(band, list)
        and len(band) == 2
        and all(_number(b) for b in band)
        and 0 <= band[0] < band[1] <= 1
    ):
        errors.append(("config.band", "must be [low, high] with 0 <= low < high <= 1"))
    if not (_number(config.get("floor", 0.05)) and 0 <= config.get("floor", 0.05) < 1):
        errors.append(("config.floor", "must be a number in [0, 1)"))
    if not (isinstance(config.get("window", 64), int) and config.get("window", 64) >= 1):
        errors.append(("config.window", "must be a whole number of at least 1"))
    if not (_number(config.get("step", 0.2)) and 0 < config.get("step", 0.2) <= 1):
        errors.append(("config.step", "must be in (0, 1]"))
    if not isinstance(config.get("dynamic", True), bool):
        errors.append(("config.dynamic", "must be true or false"))
    return errors


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _family_entry(
    index: int, item: Any, versions: QuerySet[PoolVersion], pinned: dict[str, PoolVersion]
) -> dict[str, Any]:
    where = f"config.families[{index}]"
    if not isinstance(item, dict):
        raise field_errors([(where, "must be an object")])
    unknown = sorted(set(item) - FAMILY_KEYS)
    if unknown:
        raise field_errors([(f"{where}.{k}", "unknown field") for k in unknown])
    version = (
        versions.select_related("family").filter(pk=item.get("version")).first()
        if isinstance(item.get("version"), int)
        else None
    )
    if version is None:
        raise field_errors([(f"{where}.version", "must be the id of a pool version of your team")])
    name = version.family.slug
    if name in pinned:
        raise field_errors([(f"{where}.version", f"family {name!r} appears twice")])
    pinned[name] = version
    available = sorted(
        int(level) for level, n in version.difficulty_histogram.get("train", {}).items() if n
    )
    levels = item.get("levels") or available
    missing = sorted(set(levels) - set(available)) if isinstance(levels, list) else None
    if missing:
        raise field_errors(
            [
                (
                    f"{where}.levels",
                    f"version {version.number} has no train tasks at levels {missing}",
                )
            ]
        )
    return {
        "name": name,
        "levels": levels,
        "weight": item.get("weight", 1.0),
        "initial": item.get("initial"),
    }


@transaction.atomic
def create_curriculum(
    user: AbstractBaseUser, team: Team, *, config: Any, **fields: Any
) -> Curriculum:
    resolved, _ = resolve(config, PoolVersion.objects.filter(family__team=team))
    curriculum = Curriculum.objects.create(team=team, created_by=user, config=config, **fields)
    record(
        user, "curriculum.created", curriculum, team=team, changes={"policy": resolved.to_dict()}
    )
    return curriculum


@transaction.atomic
def update_curriculum(user: AbstractBaseUser, curriculum: Curriculum, **fields: Any) -> Curriculum:
    if "config" in fields:
        resolve(fields["config"], PoolVersion.objects.filter(family__team=curriculum.team))
        if fields["config"] != curriculum.config:
            curriculum.revision += 1
            record(
                user,
                "curriculum.config_changed",
                curriculum,
                team=curriculum.team,
                changes={
                    "revision": curriculum.revision,
                    "before": curriculum.config,
                    "after": fields["config"],
                },
            )
    for name, value in fields.items():
        setattr(curriculum, name, value)
    curriculum.save()
    return curriculum


def preview(
    config: Any,
    versions: QuerySet[PoolVersion],
    *,
    steps: int,
    batch: int,
    seed: int,
    learner: dict[str, Any],
) -> dict[str, Any]:
    """Simulate the policy against a synthetic learner; the trace feeds the preview chart."""
    resolved, _ = resolve(config, versions)
    synthetic = policy.SyntheticLearner(
        abilities={fam.name: float(learner.get("ability", 1.0)) for fam in resolved.families},
        slope=float(learner.get("slope", 2.0)),
        learning_rate=float(learner.get("learning_rate", 0.001)),
    )
    trace = policy.simulate(
        resolved, synthetic, steps=min(steps, MAX_PREVIEW_STEPS), batch=batch, seed=seed
    )
    trace.pop("state", None)
    trace["in_band"] = _in_band_share(trace)
    return trace


def _in_band_share(trace: dict[str, Any]) -> dict[str, float | None]:
    """Per family, the share of steps (once its window filled) whose rolling rate sat in band."""
    low, high = trace["band"]
    shares: dict[str, float | None] = {}
    for name in trace["levels"]:
        rates = [
            s["rolling_success"][name]
            for s in trace["steps"]
            if s["rolling_success"][name] is not None
        ]
        shares[name] = sum(low <= r <= high for r in rates) / len(rates) if rates else None
    return shares
