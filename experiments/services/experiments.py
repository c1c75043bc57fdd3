"""Experiments: a configuration resolved against the team's versions and frozen; clones; diffs.

``resolve_config`` turns what a caller sends into the canonical configuration
(``experiments.config``) or a 400 naming the field: a saved curriculum is copied in (with its
revision as the origin), every pool version and verifier version must be the team's, the
levels must exist in the versions' train splits, an evaluation suite named in ``eval.suite``
must be the team's and evaluate curriculum families, and a running worker must offer the model.
Families played as environments train on episodes, so their configuration must be one the
engine trains episodes with (``engine_inputs.environment_problems``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.exceptions import ValidationError

from crucible import jobs
from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.errors import flatten
from crucible.api.field_errors import field_errors
from tasks_app.services import pinning

from .. import config as cfg
from ..jobs import RUN_TRAINING
from ..models import Experiment, PreflightReport
from . import suites, workers
from .engine_inputs import environment_problems

SAVED_KEYS = {"saved", "verifiers"}


def resolve_config(team: Team, data: Any) -> dict[str, Any]:
    """The canonical configuration for ``data`` in ``team``; a 400 naming the field if not."""
    if isinstance(data, dict) and _is_saved_reference(data.get("curriculum")):
        data = {**data, "curriculum": _expand_saved(team, data["curriculum"])}
    try:
        parsed = cfg.parse(data)
    except cfg.ConfigError as exc:
        raise field_errors(exc.errors, prefix="config") from exc
    parsed = _with_levels(team, parsed)
    _check_verifiers(team, parsed)
    problems = environment_problems(team, parsed)
    if problems:
        raise field_errors(problems)
    parsed = suites.resolve_eval(team, parsed)
    _check_model(parsed.model)
    return parsed.to_dict()


def _is_saved_reference(curriculum: Any) -> bool:
    return isinstance(curriculum, dict) and "saved" in curriculum


def _expand_saved(team: Team, reference: dict[str, Any]) -> dict[str, Any]:
    """``{"saved": id, "verifiers": {"<pool version id>": verifier version id}}`` as an inline
    curriculum: the saved one's families and policy, each family with its verifier."""
    where = "config.curriculum"
    unknown = sorted(set(reference) - SAVED_KEYS)
    if unknown:
        raise field_errors([(f"{where}.{k}", "unknown field") for k in unknown])
    saved = reference["saved"]
    valid_id = isinstance(saved, int) and not isinstance(saved, bool) and 0 < saved < 2**63
    curriculum = pinning.saved_curriculum(team, saved) if valid_id else None
    if curriculum is None:
        raise field_errors([(f"{where}.saved", "must be the id of a curriculum of your team")])
    verifiers = reference.get("verifiers")
    if not isinstance(verifiers, dict):
        why = "must map each pool version id of the curriculum to a verifier version id"
        raise field_errors([(f"{where}.verifiers", why)])
    stored = curriculum.config
    families = [
        _saved_family(entry, verifiers, where)
        for entry in stored.get("families", [])
        if isinstance(entry, dict)
    ]
    policy = {k: stored[k] for k in cfg.POLICY_KNOBS if k in stored}
    origin = {"curriculum": curriculum.id, "revision": curriculum.revision}
    return {"families": families, **policy, "origin": origin}


def _saved_family(entry: dict[str, Any], verifiers: dict[str, Any], where: str) -> dict[str, Any]:
    version = entry.get("version")
    if str(version) not in verifiers:
        why = f"needs a verifier version for pool version {version} of the curriculum"
        raise field_errors([(f"{where}.verifiers.{version}", why)])
    family = {"pool_version": version, "verifier_version": verifiers[str(version)]}
    return family | {k: entry[k] for k in cfg.SAVED_FAMILY_KEYS if k in entry}


def _with_levels(team: Team, parsed: cfg.ExperimentConfig) -> cfg.ExperimentConfig:
    """Check the pool versions through the curriculum service (the team's, levels with train
    tasks) and pin each family's levels: all of its version's train levels when unset."""
    spec = parsed.curriculum
    try:
        policy, _ = pinning.resolve_in_team(team, spec.saved_form())
    except ValidationError as exc:
        raise _curriculum_errors(exc) from exc
    families = [
        dataclasses.replace(f, levels=list(p.levels))
        for f, p in zip(spec.families, policy.families, strict=True)
    ]
    curriculum = dataclasses.replace(spec, families=families)
    return dataclasses.replace(parsed, curriculum=curriculum)


def _curriculum_errors(exc: ValidationError) -> ValidationError:
    """The curriculum service names fields as a saved curriculum has them (``config.families[0]
    .version``); here they live under ``config.curriculum`` and the version is ``pool_version``."""
    pairs = []
    for error in flatten(exc.detail):
        path = "config.curriculum" + (error["field"] or "config").removeprefix("config")
        if path.endswith(".version"):
            path = path.removesuffix(".version") + ".pool_version"
        pairs.append((path, error["message"]))
    return field_errors(pairs)


def _check_verifiers(team: Team, parsed: cfg.ExperimentConfig) -> None:
    owned = pinning.verifier_specs(team, {f.verifier_version for f in parsed.curriculum.families})
    errors = [
        (
            f"config.curriculum.families[{i}].verifier_version",
            "must be the id of a verifier version of your team",
        )
        for i, f in enumerate(parsed.curriculum.families)
        if f.verifier_version not in owned
    ]
    if errors:
        raise field_errors(errors)


def _check_model(name: str) -> None:
    problem = workers.model_problem(name, queue=jobs.queue_of(RUN_TRAINING))
    if problem:
        raise field_errors([("config.model", problem)], code="unavailable")


# --- writes ------------------------------------------------------------------------------


@transaction.atomic
def create_experiment(
    user: AbstractBaseUser,
    team: Team,
    *,
    name: str,
    config: Any,
    description: str = "",
    parent: Experiment | None = None,
) -> Experiment:
    canonical = resolve_config(team, config)
    experiment = Experiment.objects.create(
        team=team,
        name=name,
        description=description,
        config=canonical,
        config_hash=cfg.config_hash(canonical),
        parent=parent,
        created_by=user,
    )
    # Pre-flights run on this configuration before the experiment existed (from the wizard)
    # are kept with it.
    PreflightReport.objects.filter(
        team=team, config_hash=experiment.config_hash, experiment=None
    ).update(experiment=experiment)
    changes: dict[str, Any] = {"config_hash": experiment.config_hash}
    if parent is not None:
        changes |= {"parent": parent.pk, "changed": [c.path for c in diff(parent, experiment)]}
    action = "experiment.cloned" if parent is not None else "experiment.created"
    record(user, action, experiment, team=team, changes=changes)
    return experiment


def clone_experiment(
    user: AbstractBaseUser,
    experiment: Experiment,
    *,
    overrides: dict[str, Any] | None = None,
    name: str | None = None,
    description: str | None = None,
) -> Experiment:
    """A new experiment from ``experiment``'s configuration with ``overrides`` laid over it;
    the original stays as it was (experiments are frozen)."""
    config = cloned_config(experiment.config, overrides or {})
    return create_experiment(
        user,
        experiment.team,
        name=name or f"{experiment.name} (clone)"[:120],
        description=experiment.description if description is None else description,
        config=config,
        parent=experiment,
    )


def cloned_config(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Objects merge key by key, anything else replaces. A new algorithm keeps only the
    hyperparameters chosen on purpose; a new curriculum forgets where the old one came from."""
    if not isinstance(overrides, dict):
        raise field_errors([("overrides", "must be an object")])
    start = dict(base)
    new_algorithm = overrides.get("algorithm", base.get("algorithm"))
    if new_algorithm != base.get("algorithm"):
        start["hyperparameters"] = cfg.carried_hyperparameters(
            base.get("algorithm", ""), base.get("hyperparameters", {}), str(new_algorithm)
        )
    curriculum = overrides.get("curriculum")
    if _is_saved_reference(curriculum):
        start.pop("curriculum", None)
    elif isinstance(curriculum, dict) and "origin" not in curriculum:
        start["curriculum"] = {**start.get("curriculum", {}), "origin": None}
    return cfg.merge(start, overrides)


def diff(a: Experiment, b: Experiment) -> list[cfg.Change]:
    return cfg.diff(a.config, b.config)
