"""Field-named API errors: turning pure-logic errors, and writes that lose a race for a unique
value (a slug), into the 400 whose errors name their field (the shape: ``crucible.api.errors``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Model, UniqueConstraint
from rest_framework.exceptions import ErrorDetail, ValidationError


def field_errors(
    pairs: Iterable[tuple[str, str]], *, prefix: str = "", code: str = "invalid"
) -> ValidationError:
    """A ValidationError whose keys are field paths (``spec.layers[2].params.tolerance``)."""
    detail: dict[str, list[Any]] = {}
    for field, reason in pairs:
        path = f"{prefix}.{field}" if prefix and field else (prefix or field)
        detail.setdefault(path, []).append(ErrorDetail(reason, code=code))
    return ValidationError(detail)


def slug_taken_message(model: type[Model]) -> str:
    return f"A {model._meta.verbose_name} with this slug already exists in this team."


def slug_taken(model: type[Model]) -> ValidationError:
    """The 400 for a slug another object of the same team already has."""
    return field_errors([("slug", slug_taken_message(model))], code="unique")


@contextmanager
def slug_conflicts_refused(model: type[Model]) -> Iterator[None]:
    """Run a write in a savepoint; losing a race for a (team, slug) pair is a 400 on ``slug``.

    The serializers check the slug first; this covers two writers that both passed the check.
    """
    with unique_conflicts_refused(model, "slug", slug_taken_message(model)):
        yield


@contextmanager
def unique_conflicts_refused(model: type[Model], field: str, message: str) -> Iterator[None]:
    """Run a write in a savepoint; breaking one of ``model``'s unique constraints on
    ``field`` (two writers that both passed the check before writing) is a 400 on ``field``."""
    names = {
        c.name
        for c in model._meta.constraints
        if isinstance(c, UniqueConstraint) and field in c.fields
    }
    try:
        with transaction.atomic():
            yield
    except IntegrityError as exc:
        text = str(exc)
        # PostgreSQL names the constraint; SQLite names the table's columns.
        if (
            not any(name in text for name in names)
            and f"{model._meta.db_table}.{field}" not in text
        ):
            raise
        raise field_errors([(field, message)], code="unique") from exc


def query_choice(params: Any, name: str, choices: Iterable[str]) -> str | None:
    """Query parameter ``name`` (of ``request.query_params``) if given: one of ``choices``, as
    the schema's enum states, or a 400 naming it (an unknown value never filters nothing)."""
    value = params.get(name)
    if not value:
        return None
    allowed = list(choices)
    if value not in allowed:
        raise field_errors([(name, f"must be one of {', '.join(allowed)}")])
    return str(value)


def query_flag(params: Any, name: str) -> bool:
    """Boolean query parameter ``name``: absent is false; ``true`` or ``false`` once (any case),
    as the schema's boolean states, else a 400 naming it (``yes`` never quietly means false)."""
    values = params.getlist(name)
    if not values:
        return False
    if len(values) > 1 or values[0].lower() not in ("true", "false"):
        raise field_errors([(name, "must be true or false, given once")])
    return bool(values[0].lower() == "true")
