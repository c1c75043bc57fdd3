"""The model registry: registered models, versions frozen at registration, and aliases.

Registering a checkpoint freezes two things on the version: its lineage (the run, the
experiment and its config hash, the pool and verifier versions it trained on, its promotion)
and its training format, read from the same places the training job read them: the
curriculum's pool versions (their family's prompt template, or the dataset's own prompts),
the verifier versions' extractors, and the engine's prompt encoding (``training.prompting``).
A base model of the catalogue can be registered as a baseline; it has no families.

An alias points at one version of its model; ``production`` only at a promoted checkpoint
(``services.promotion``), refused with a 409 otherwise. Every write is audited and reaches the
team's open pages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors, unique_conflicts_refused
from crucible.realtime.publish import publish_to_team
from tasks_app.services import pinning
from training.models import load_tokenizer
from training.prompting import prompt_encoding

from .. import catalogue
from .. import config as cfg
from ..model_format import FamilyFormat, ModelFormat, differences
from ..models import Checkpoint, ModelAlias, ModelVersion, Promotion, RegisteredModel
from . import releases, reports

PRODUCTION = "production"
"""The alias serving reads; it may only point at a promoted checkpoint."""
ALIAS_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
NAME_TAKEN = "a registered model with this name already exists in the team"


class AliasRefused(ValidationError):
    """A 409 naming the field at fault: the version cannot carry the alias."""

    status_code = 409
    default_code = "alias_refused"


# --- what a version freezes ----------------------------------------------------------------


def training_format(team: Team, config: Mapping[str, Any]) -> ModelFormat:
    """The format an experiment's runs trained with: the engine's prompt encoding, and per
    curriculum family its pool version's prompt template and its verifier's extractor (the
    versions the training job pins, read through the same lookups)."""
    entries = _curriculum(config)
    pools = pinning.pinned_formats(team, [e["pool_version"] for e in entries])
    judges = pinning.pinned_verifiers(team, [e["verifier_version"] for e in entries])
    families = tuple(
        FamilyFormat(
            family=pools[e["pool_version"]].family,
            prompt_template=pools[e["pool_version"]].prompt_template,
            extract=judges[e["verifier_version"]].extract
            if e["verifier_version"] in judges
            else "",
            pool_version=e["pool_version"],
            verifier_version=e["verifier_version"],
        )
        for e in entries
        if e["pool_version"] in pools
    )
    return ModelFormat.from_encoding(encoding_of(config), families)


def encoding_of(config: Mapping[str, Any]) -> dict[str, Any]:
    """The prompt encoding an experiment's runs trained in: raw, or the chat template of its
    model's tokenizer with the configuration's system prompt and reasoning tags."""
    fmt = cfg.format_of(config)
    if not fmt.is_chat:
        return prompt_encoding(fmt)
    path = catalogue.resolve(str(config.get("model")), Path(settings.MODELS_DIR))
    return prompt_encoding(fmt, load_tokenizer(path))


def _curriculum(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The resolved configuration's curriculum families: ``{pool_version, verifier_version}``."""
    families = (config.get("curriculum") or {}).get("families") or []
    return [
        {"pool_version": e.get("pool_version"), "verifier_version": e.get("verifier_version")}
        for e in families
        if isinstance(e, dict)
    ]


def base_format() -> ModelFormat:
    """A catalogue base model: evaluated with the engine's encoding, on no family."""
    return ModelFormat.from_encoding(prompt_encoding())


def lineage_of(checkpoint: Checkpoint) -> dict[str, Any]:
    """Where a checkpoint came from, as plain data that outlives the rows it names."""
    run = checkpoint.run
    experiment = run.experiment
    config = run.config_of_record
    curriculum = _curriculum(config)
    team = run.team
    pools = pinning.pinned_formats(team, [e["pool_version"] for e in curriculum])
    judges = pinning.pinned_verifiers(team, [e["verifier_version"] for e in curriculum])
    promotion = Promotion.objects.select_related("report").filter(checkpoint=checkpoint).first()
    return {
        "checkpoint": checkpoint.pk,
        "step": checkpoint.step,
        "run": {"id": run.pk, "number": run.number, "source": run.source, "name": run.title},
        "experiment": None if experiment is None else {"id": experiment.pk, "name": experiment.name},
        "config_hash": "" if experiment is None else experiment.config_hash,
        "model": config.get("model", ""),
        "pool_versions": [
            {"id": p.id, "family": p.family, "number": p.number}
            for p in (pools.get(e["pool_version"]) for e in curriculum)
            if p is not None
        ],
        "verifier_versions": [
            {"id": v.id, "verifier": v.verifier, "number": v.number}
            for v in (judges.get(e["verifier_version"]) for e in curriculum)
            if v is not None
        ],
        "promotion": None if promotion is None else promotion_ref(promotion),
    }


def promotion_ref(promotion: Promotion) -> dict[str, Any]:
    """A promotion as a version's lineage names it: the report, and who approved it over a
    regressed family and why (empty when nothing regressed)."""
    return {
        "id": promotion.pk,
        "report": promotion.report_id,
        "report_version": promotion.report.version,
        "overrides": reports.overrides(promotion.report),
    }


# --- models ----------------------------------------------------------------------------------


def create_model(
    user: AbstractBaseUser, team: Team, *, name: str, description: str = ""
) -> RegisteredModel:
    name = _checked_name(team, name)
    with unique_conflicts_refused(RegisteredModel, "name", NAME_TAKEN):
        model = RegisteredModel.objects.create(
            team=team, name=name, description=description, created_by=user
        )
        record(user, "registered_model.created", model, team=team, changes={"name": name})
        _publish(model, "created")
    return model


def update_model(user: AbstractBaseUser, model: RegisteredModel, **changes: Any) -> RegisteredModel:
    changed = {k: v for k, v in changes.items() if getattr(model, k) != v}
    if "name" in changed:
        changed["name"] = _checked_name(model.team, changed["name"], exclude=model.pk)
    if not changed:
        return model
    with unique_conflicts_refused(RegisteredModel, "name", NAME_TAKEN):
        for key, value in changed.items():
            setattr(model, key, value)
        model.updated_at = timezone.now()
        model.save()
        record(user, "registered_model.updated", model, team=model.team,
               changes={"changed": sorted(changed)})  # fmt: skip
        _publish(model, "updated")
    return model


def delete_model(user: AbstractBaseUser, model: RegisteredModel) -> None:
    """Delete a model with its versions and aliases; one whose production alias is set is
    kept (409), since something serves it."""
    if model.aliases.filter(alias=PRODUCTION).exists():
        why = f"model {model.name!r} has a production alias; remove it first"
        raise AliasRefused({"alias": [why]})
    served = releases.deployments_of(model, 5)
    if served:
        why = f"model {model.name!r} is deployed ({', '.join(served)}); delete those first"
        raise AliasRefused({"deployment": [why]})
    with transaction.atomic():
        record(user, "registered_model.deleted", model, team=model.team)
        _publish(model, "deleted")
        model.delete()


def _checked_name(team: Team, name: str, exclude: int | None = None) -> str:
    name = (name or "").strip()
    if not name:
        raise field_errors([("name", "a model needs a name")])
    if RegisteredModel.objects.filter(team=team, name=name).exclude(pk=exclude).exists():
        raise field_errors([("name", NAME_TAKEN)], code="unique")
    return name


# --- versions --------------------------------------------------------------------------------


def register(
    user: AbstractBaseUser,
    model: RegisteredModel,
    *,
    checkpoint: int | None = None,
    base_model: str | None = None,
    description: str = "",
) -> ModelVersion:
    """The model's next version: a checkpoint of the team, or a catalogue base model; its
    lineage and training format are frozen now. A 400 names the field at fault."""
    found, lineage, fmt = _subject(model.team, checkpoint, base_model)
    with transaction.atomic():
        RegisteredModel.objects.select_for_update().filter(pk=model.pk).first()  # numbers in turn
        last = model.versions.aggregate(n=Max("number"))["n"] or 0
        version = ModelVersion.objects.create(
            model=model, number=last + 1, checkpoint=found, base_model=base_model or "",
            lineage=lineage, format=fmt.to_dict(), description=description, created_by=user,
        )  # fmt: skip
        record(user, "model_version.registered", version, team=model.team,
               changes={"checkpoint": checkpoint, "base_model": base_model or "",
                        "lineage": lineage})  # fmt: skip
        _publish(model, "version_registered", version=version.pk)
    return version


def _subject(
    team: Team, checkpoint: int | None, base_model: str | None
) -> tuple[Checkpoint | None, dict[str, Any], ModelFormat]:
    if (checkpoint is None) == (base_model is None):
        raise field_errors([("checkpoint", "give either checkpoint or base_model")])
    if checkpoint is None:
        names = {entry.name for entry in catalogue.catalogue(Path(settings.MODELS_DIR))}
        if base_model not in names:
            known = ", ".join(sorted(names)) or "none"
            raise field_errors(
                [("base_model", f"unknown model {base_model!r}; available: {known}")]
            )
        return None, {"base_model": base_model}, base_format()
    found = (
        Checkpoint.objects.select_related("run__experiment")
        .filter(pk=checkpoint, run__team=team)
        .first()
    )
    if found is None:
        raise field_errors([("checkpoint", f"checkpoint {checkpoint} does not exist")])
    try:
        fmt = training_format(team, found.run.config_of_record)
    except catalogue.UnknownModel as exc:  # a chat format reads its model's template
        why = f"its model's chat template cannot be read: {exc}"
        raise field_errors([("checkpoint", why)]) from exc
    return found, lineage_of(found), fmt


def check_format(version: ModelVersion, served: Mapping[str, Any]) -> list[str]:
    """How ``served`` (a request's or a deployment's format) differs from the version's
    training format; [] when it matches."""
    return differences(ModelFormat.from_dict(version.format), served)


# --- aliases ---------------------------------------------------------------------------------


def alias_refusal(version: ModelVersion, alias: str) -> str | None:
    """Why ``version`` may not carry ``alias``; None when it may."""
    if alias != PRODUCTION:
        return None
    if version.checkpoint_id is None:
        return f"production needs a promoted checkpoint; {version} is not a checkpoint"
    if not Promotion.objects.filter(checkpoint_id=version.checkpoint_id).exists():
        return (
            f"production needs a promoted checkpoint; checkpoint {version.checkpoint_id} of "
            f"{version} is not promoted (promote it on an approved report first)"
        )
    return None


def set_alias(user: AbstractBaseUser | None, version: ModelVersion, alias: str) -> ModelAlias:
    """Point ``alias`` of the version's model at ``version``, moving it if it points elsewhere."""
    alias = _checked_alias(alias)
    why = alias_refusal(version, alias)
    if why is not None:
        raise AliasRefused({"alias": [why]})
    model = version.model
    with transaction.atomic():
        RegisteredModel.objects.select_for_update().filter(pk=model.pk).first()
        current = ModelAlias.objects.filter(model=model, alias=alias).first()
        before = current.version_id if current else None
        if current is None:
            current = ModelAlias(model=model, alias=alias)
        elif before == version.pk:
            return current
        current.version, current.updated_by, current.updated_at = version, user, timezone.now()
        current.save()
        before_number = (
            ModelVersion.objects.filter(pk=before).values_list("number", flat=True).first()
        )
        record(user, "model_alias.set", model, team=model.team,
               changes={"alias": alias, "from": before_number, "to": version.number})  # fmt: skip
        _publish(model, "alias_set", alias=alias, version=version.pk)
    return current


def remove_alias(user: AbstractBaseUser, model: RegisteredModel, alias: str) -> None:
    """Remove ``alias`` from the model; a 400 on ``alias`` when it has none of that name."""
    current = ModelAlias.objects.filter(model=model, alias=alias).select_related("version").first()
    if current is None:
        raise field_errors([("alias", f"model {model.name!r} has no alias {alias!r}")])
    with transaction.atomic():
        record(user, "model_alias.removed", model, team=model.team,
               changes={"alias": alias, "from": current.version.number, "to": None})  # fmt: skip
        current.delete()
        _publish(model, "alias_removed", alias=alias)


def _checked_alias(alias: Any) -> str:
    if not isinstance(alias, str) or not ALIAS_RE.match(alias):
        why = "an alias is a lowercase slug: letters, digits and hyphens, at most 60"
        raise field_errors([("alias", why)])
    return alias


def _publish(model: RegisteredModel, change: str, **extra: Any) -> None:
    event = {"type": "registered_model.changed", "model": model.pk, "change": change, **extra}
    team_id = model.team_id
    transaction.on_commit(lambda: publish_to_team(team_id, event), robust=True)
