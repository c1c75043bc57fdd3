"""Curricula over pinned pool versions: validation, edits with revisions, policy preview.

Stored config (JSON; its fields are defined once, see ``curriculum_config``)::

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
from rest_framework.exceptions import ValidationError

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from tasks_app import curriculum as policy
from tasks_app.models import Curriculum, PoolVersion

from . import curriculum_config

MAX_PREVIEW_STEPS = 2_000
# A preview runs in the web process, so its work is bounded: simulated attempts (steps x batch)
# and trace points (steps x families, what the response carries). Measured on a 2-core
# development machine under load from other work: at both caps (128 steps x 1024 x 128
# families) simulating and rendering the 1.4 MB trace took 0.95 s, 2000 steps x 64 took 0.55 s;
# 2000 x 1024 (2,048,000 attempts, now refused) took 8.2 s under the same load.
MAX_PREVIEW_ATTEMPTS = 131_072
MAX_PREVIEW_POINTS = 16_384


def resolve(
    config: Any, versions: QuerySet[PoolVersion]
) -> tuple[policy.CurriculumConfig, dict[str, PoolVersion]]:
    """The pure policy config for ``config``; a 400 naming the field on any problem."""
    return _resolved(stored_config(config), versions)


def _resolved(
    data: dict[str, Any], versions: QuerySet[PoolVersion]
) -> tuple[policy.CurriculumConfig, dict[str, PoolVersion]]:
    pinned: dict[str, PoolVersion] = {}
    families = [
        _named(index, policy.PinnedFamily(**entry), versions, pinned)
        for index, entry in enumerate(data["families"])
    ]
    knobs = {k: v for k, v in data.items() if k != "families"}
    try:
        resolved = policy.CurriculumConfig(
            families=families, **{**knobs, "band": tuple(knobs["band"])}
        )
    except policy.ConfigError as exc:
        raise field_errors(exc.errors, prefix="config") from exc
    return resolved, pinned


def stored_config(config: Any) -> dict[str, Any]:
    """``config`` as it is stored (defaults filled in); a 400 on ``config.<field>`` when a
    field has the wrong type or shape."""
    try:
        return curriculum_config.validated(config)
    except ValidationError as exc:
        raise ValidationError({"config": exc.detail}) from exc


def _comparable(config: Any) -> Any:
    """A saved config in its stored form, so one saved before defaults were stored with it is
    not taken for a change (and a new revision) when it is saved again as it was."""
    try:
        return stored_config(config)
    except ValidationError:
        return config


def _named(
    index: int,
    family: policy.PinnedFamily,
    versions: QuerySet[PoolVersion],
    pinned: dict[str, PoolVersion],
) -> policy.FamilyCurriculum:
    where = f"config.families[{index}]"
    version = versions.select_related("family").filter(pk=family.version).first()
    if version is None:
        raise field_errors([(f"{where}.version", "must be the id of a pool version of your team")])
    name = version.family.slug
    if name in pinned:
        raise field_errors([(f"{where}.version", f"family {name!r} appears twice")])
    pinned[name] = version
    available = sorted(
        int(level) for level, n in version.difficulty_histogram.get("train", {}).items() if n
    )
    missing = sorted(set(family.levels or []) - set(available))
    if missing:
        why = f"version {version.number} has no train tasks at levels {missing}"
        raise field_errors([(f"{where}.levels", why)])
    return family.named(name, available)


@transaction.atomic
def create_curriculum(
    user: AbstractBaseUser, team: Team, *, config: Any, **fields: Any
) -> Curriculum:
    stored = stored_config(config)
    resolved, _ = _resolved(stored, PoolVersion.objects.filter(family__team=team))
    curriculum = Curriculum.objects.create(team=team, created_by=user, config=stored, **fields)
    record(
        user, "curriculum.created", curriculum, team=team, changes={"policy": resolved.to_dict()}
    )
    return curriculum


@transaction.atomic
def update_curriculum(user: AbstractBaseUser, curriculum: Curriculum, **fields: Any) -> Curriculum:
    if "config" in fields:
        fields["config"] = stored_config(fields["config"])
        _resolved(fields["config"], PoolVersion.objects.filter(family__team=curriculum.team))
        if fields["config"] != _comparable(curriculum.config):
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


@transaction.atomic
def delete_curriculum(user: AbstractBaseUser, curriculum: Curriculum) -> None:
    record(
        user,
        "curriculum.deleted",
        curriculum,
        team=curriculum.team,
        changes={
            "name": curriculum.name,
            "slug": curriculum.slug,
            "revision": curriculum.revision,
        },
    )
    curriculum.delete()


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
    check_preview_size(steps, batch, len(resolved.families))
    synthetic = policy.SyntheticLearner(
        abilities={fam.name: float(learner.get("ability", 1.0)) for fam in resolved.families},
        slope=float(learner.get("slope", 2.0)),
        learning_rate=float(learner.get("learning_rate", 0.001)),
    )
    trace = policy.simulate(resolved, synthetic, steps=steps, batch=batch, seed=seed)
    trace.pop("state", None)
    trace["in_band"] = _in_band_share(trace)
    return trace


def check_preview_size(steps: int, batch: int, families: int) -> None:
    """A 400 naming the fields when a preview would do more work than the web process should."""
    errors = []
    if steps > MAX_PREVIEW_STEPS:
        errors.append(("steps", f"must be at most {MAX_PREVIEW_STEPS}"))
    if steps * batch > MAX_PREVIEW_ATTEMPTS:
        why = (
            f"steps x batch is {steps} x {batch} = {steps * batch}; a preview simulates at most "
            f"{MAX_PREVIEW_ATTEMPTS} attempts (e.g. 2000 steps x 64)"
        )
        errors += [("steps", why), ("batch", why)]
    if steps * families > MAX_PREVIEW_POINTS:
        why = (
            f"steps x families is {steps} x {families} = {steps * families}; a preview traces "
            f"at most {MAX_PREVIEW_POINTS} points (e.g. 2000 steps x 8 families)"
        )
        errors += [("steps", why), ("config.families", why)]
    if errors:
        raise field_errors(errors)


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
