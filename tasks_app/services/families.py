"""Task families: create, edit, and remove them, by deleting or archiving.

A family whose pool versions something pins (a curriculum now; experiments later) cannot lose
them, so removing it archives it: hidden from lists, read-only, restorable. Any other family is
deleted with all its versions. What pins a family is answered by pin finders, one per app that
pins versions; an app above this one registers its own with ``register_pin_finder`` from its
``AppConfig.ready``, so this module never imports it.

Names are unique per team (case aside), and a slug is derived from the name only when none is
given; a taken name or slug is a 400, never a silently suffixed copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from types import ModuleType
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.text import slugify
from rest_framework import exceptions, status

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from tasks_app.environments.family_config import EnvironmentConfigInvalid, checked_environment
from tasks_app.families import common as kinds_common
from tasks_app.families.registry import UnknownKind, load_kind
from tasks_app.models import Curriculum, PoolVersion, TaskFamily

EDITABLE = (
    "name",
    "slug",
    "description",
    "params",
    "prompt_template",
    "held_out_fraction",
    "environment",
)
NAME_CONSTRAINT = "family_name_per_team"


# --- kinds ------------------------------------------------------------------------------


def extra_kinds() -> dict[str, str]:
    return dict(getattr(settings, "TASK_FAMILY_KINDS", {}))


def kind_module(kind: str) -> ModuleType:
    try:
        return load_kind(kind, extra_kinds())
    except UnknownKind as exc:
        raise field_errors([("kind", str(exc.args[0]))]) from exc


def checked_params(kind: ModuleType, params: dict[str, Any] | None) -> dict[str, Any]:
    try:
        return kinds_common.validate_params(kind.params_schema, params)
    except kinds_common.ParamsInvalid as exc:
        # The pure check names the whole object "params" and anything inside by its path.
        pairs = ((k if k == "params" else f"params.{k}", v) for k, v in exc.errors.items())
        raise field_errors(pairs) from exc


def checked_template(kind: ModuleType, template: str) -> str:
    """A family's prompt template, if it can stand in for the kind's; else a 400 saying why."""
    problem = kinds_common.template_problem(template, kind.prompt_template) if template else None
    if problem:
        raise field_errors([("prompt_template", problem)])
    return template


def checked_family_environment(kind: str, value: Any) -> dict[str, Any] | None:
    """A family's ``environment`` in its complete stored shape (see
    ``tasks_app.environments.family_config``); else a 400 naming ``environment.<field>``."""
    try:
        return checked_environment(value, kind, dict(settings.ENVIRONMENT_KINDS))
    except EnvironmentConfigInvalid as exc:
        raise field_errors(exc.errors) from exc


def template_kwargs(family: TaskFamily) -> dict[str, str]:
    """What a kind is told to render its prompts with: nothing when the family keeps the kind's
    own template, so a kind plugged in without template support still works."""
    return {"template": family.prompt_template} if family.prompt_template else {}


def effective_template(family: TaskFamily) -> str:
    """The template the family's prompts are rendered with now: its own, else its kind's."""
    return family.prompt_template or str(kind_module(family.kind).prompt_template)


# --- names ------------------------------------------------------------------------------


def checked_name(team: Team, name: str, *, family: TaskFamily | None = None) -> str:
    """``name`` if no other family of the team has it (case aside); else a 400 on ``name``."""
    taken = TaskFamily.objects.filter(team=team, name__iexact=name.strip())
    if family is not None:
        taken = taken.exclude(pk=family.pk)
    other = taken.first()
    if other is not None:
        where = " (archived; restore it or choose another name)" if other.archived else ""
        raise field_errors(
            [("name", f"the family {other.name!r} already has this name{where}")], code="unique"
        )
    return name.strip()


def checked_slug(team: Team, slug: str | None, name: str) -> str:
    """The slug asked for, else one made from the name; a 400 on ``slug`` when it is taken."""
    wanted = slug or slugify(name)[:50] or "family"
    other = TaskFamily.objects.filter(team=team, slug=wanted).first()
    if other is not None:
        made = "" if slug else ", made from the name,"
        raise field_errors(
            [("slug", f"{wanted!r}{made} is the slug of {other.name!r}; choose another slug")],
            code="unique",
        )
    return wanted


def _name_conflicts_refused(write: Callable[[], None]) -> None:
    """Run a write in a savepoint; losing a race for a name is the same 400 as the check."""
    try:
        with transaction.atomic():
            write()
    except IntegrityError as exc:
        if NAME_CONSTRAINT not in str(exc):
            raise
        raise field_errors([("name", "another family of this team has this name")]) from exc


# --- create and edit --------------------------------------------------------------------


@transaction.atomic
def create_family(
    user: AbstractBaseUser | None, team: Team, *, name: str, slug: str | None = None, **fields: Any
) -> TaskFamily:
    kind = kind_module(fields["kind"])
    fields["params"] = checked_params(kind, fields.get("params"))
    checked_template(kind, fields.get("prompt_template", ""))
    fields["environment"] = checked_family_environment(fields["kind"], fields.get("environment"))
    name = checked_name(team, name)
    family = TaskFamily(
        team=team, created_by=user, name=name, slug=checked_slug(team, slug, name), **fields
    )
    _name_conflicts_refused(family.save)
    record(
        user, "family.created", family, team=team, changes={"kind": family.kind, "name": name}
    )
    return family


@transaction.atomic
def update_family(user: AbstractBaseUser, family: TaskFamily, **fields: Any) -> TaskFamily:
    """Change a family's settings; versions already frozen keep theirs. Audited as
    ``{field: [before, after]}`` for what changed."""
    family = _locked(family)
    ensure_active(family)
    kind = kind_module(family.kind)
    if "params" in fields:
        fields["params"] = checked_params(kind, fields["params"])
    if "prompt_template" in fields:
        checked_template(kind, fields["prompt_template"])
    if "environment" in fields:
        fields["environment"] = checked_family_environment(family.kind, fields["environment"])
    if "name" in fields:
        fields["name"] = checked_name(family.team, fields["name"], family=family)
    changes = {
        key: [getattr(family, key), value]
        for key, value in fields.items()
        if key in EDITABLE and getattr(family, key) != value
    }
    for key in changes:
        setattr(family, key, fields[key])
    if changes:
        _name_conflicts_refused(family.save)
        record(user, "family.updated", family, team=family.team, changes=changes)
    return family


def _locked(family: TaskFamily) -> TaskFamily:
    return TaskFamily.objects.select_related("team").select_for_update(of=("self",)).get(
        pk=family.pk
    )


class FamilyArchived(exceptions.APIException):
    """A write to an archived family: a 400 in the one error shape, with the code saying why."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "archived"


def ensure_active(family: TaskFamily) -> None:
    """Archived families are read-only: their versions are pinned as they are."""
    if family.archived:
        raise FamilyArchived(f"{family.name!r} is archived and read-only; restore it to change it")


# --- what pins a family -----------------------------------------------------------------


@dataclass(frozen=True)
class Pin:
    """Something that uses versions of a family, so they must stay."""

    kind: str
    """What pins, e.g. "curriculum"."""
    id: int
    name: str
    versions: list[int] = field(default_factory=list)
    """The numbers of the family's versions it pins."""

    @property
    def reason(self) -> str:
        pinned = ", ".join(f"v{n}" for n in self.versions)
        return f"pinned by {self.kind} {self.name!r}" + (f" ({pinned})" if pinned else "")


PinFinder = Callable[[TaskFamily, dict[int, int]], Iterable[Pin]]
"""(family, {version id: version number}) -> what pins any of those versions."""

_pin_finders: list[PinFinder] = []


def register_pin_finder(finder: PinFinder) -> None:
    if finder not in _pin_finders:
        _pin_finders.append(finder)


def pins(family: TaskFamily) -> list[Pin]:
    """Everything that pins a version of ``family``, from every registered finder."""
    numbers = dict(family.versions.values_list("pk", "number"))
    if not numbers:
        return []
    return [pin for finder in _pin_finders for pin in finder(family, numbers)]


def curricula_pinning(family: TaskFamily, numbers: dict[int, int]) -> list[Pin]:
    """Curricula of the family's team whose config names one of its versions."""
    found = []
    for curriculum in Curriculum.objects.filter(team_id=family.team_id).order_by("name"):
        entries = (curriculum.config or {}).get("families") or []
        ids = {e.get("version") for e in entries if isinstance(e, dict)}
        pinned = sorted(numbers[i] for i in ids if i in numbers)
        if pinned:
            found.append(Pin("curriculum", curriculum.pk, curriculum.name, pinned))
    return found


register_pin_finder(curricula_pinning)


# --- removal ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Removal:
    """What removing a family does, said before it is done."""

    action: Literal["delete", "archive"]
    versions: int
    tasks: int
    pins: list[Pin]

    @property
    def message(self) -> str:
        if self.action == "archive":
            reasons = "; ".join(pin.reason for pin in self.pins)
            return (
                f"It will be archived, not deleted: it is {reasons}. Archived families are "
                "hidden from lists and read-only, and can be restored."
            )
        held = f" and its {self.versions} version(s) ({self.tasks} tasks)" if self.versions else ""
        return f"It will be deleted{held}. This cannot be undone."

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "message": self.message,
            "versions": self.versions,
            "tasks": self.tasks,
            "pins": [{**asdict(pin), "reason": pin.reason} for pin in self.pins],
        }


def removal(family: TaskFamily) -> Removal:
    found = pins(family)
    counts = family.versions.aggregate(n=Count("pk"), tasks=Sum("task_count"))
    return Removal(
        "archive" if found else "delete", counts["n"] or 0, counts["tasks"] or 0, found
    )


@transaction.atomic
def remove_family(user: AbstractBaseUser, family: TaskFamily) -> Removal:
    """Archive the family when something pins it, else delete it with all its versions."""
    family = _locked(family)
    plan = removal(family)
    if plan.action == "archive":
        _archive(user, family, plan)
        return plan
    record(
        user,
        "family.deleted",
        family,
        team=family.team,
        changes={"kind": family.kind, "versions": plan.versions, "tasks": plan.tasks},
    )
    # Newest first: each version is the parent of the next, which must go before it.
    for version in PoolVersion.objects.filter(family=family).order_by("-number"):
        version.delete()
    family.delete()
    return plan


@transaction.atomic
def archive_family(user: AbstractBaseUser, family: TaskFamily) -> TaskFamily:
    family = _locked(family)
    if not family.archived:
        _archive(user, family, removal(family))
    return family


def _archive(user: AbstractBaseUser, family: TaskFamily, plan: Removal) -> None:
    family.archived_at = timezone.now()
    family.save(update_fields=["archived_at", "updated_at"])
    reasons = [pin.reason for pin in plan.pins]
    record(user, "family.archived", family, team=family.team, changes={"pinned_by": reasons})


@transaction.atomic
def restore_family(user: AbstractBaseUser, family: TaskFamily) -> TaskFamily:
    family = _locked(family)
    if family.archived:
        family.archived_at = None
        family.save(update_fields=["archived_at", "updated_at"])
        record(user, "family.restored", family, team=family.team)
    return family
