"""Runs searched with the filter language of ``experiments.run_filter``, as one query.

Every key and value goes to the database as a bound parameter: a key becomes a JSON path
step (``KeyTransform``), never part of a column name or of the SQL text. A number compared
in a JSON document only matches numbers: a range on a string or a null never matches, so a
run whose ``lr`` is the string "auto" is not "greater than 0.1".
"""

from __future__ import annotations

import re
import sys
from typing import Any

from django.db.models import CharField, FloatField, Q, QuerySet, Value
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast, Coalesce, NullIf

from ..models import Run, RunSource
from ..run_filter import Condition, parse

LOOKUPS = {"=": "exact", ">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "like": "iregex"}
FLOAT_MAX = sys.float_info.max

__all__ = ["filtered", "parse"]


def filtered(runs: QuerySet[Run], text: str) -> QuerySet[Run]:
    """``runs`` that meet every condition of the filter ``text`` (``FilterError`` if bad)."""
    for index, condition in enumerate(parse(text)):
        runs = _apply(runs, condition, f"_search_{index}")
    return runs


def _apply(runs: QuerySet[Run], condition: Condition, alias: str) -> QuerySet[Run]:
    namespace, path = condition.namespace, condition.path
    if namespace == "metrics":
        return runs.alias(**{alias: KeyTransform(path[0], "summary")}).filter(
            _compare(alias, condition, json=True)
        )
    if namespace == "tags":
        return runs.alias(**{alias: _text(KeyTextTransform(path[0], "tags"))}).filter(
            _compare(alias, condition, json=False)
        )
    if namespace == "params":
        # An outside run's own parameters; a platform run's experiment configuration.
        own, pinned = f"{alias}_own", f"{alias}_exp"
        runs = runs.alias(
            **{
                own: _json_path("params", path, condition),
                pinned: _json_path("experiment__config", path, condition),
            }
        )
        outside = Q(source=RunSource.EXTERNAL) & _compare(own, condition, json=True)
        platform = Q(source=RunSource.PLATFORM) & _compare(pinned, condition, json=True)
        return runs.filter(outside | platform)
    return _attribute(runs, condition, alias)


def _json_path(column: str, path: tuple[str, ...], condition: Condition) -> Any:
    text = isinstance(condition.value, str)
    expression: Any = column
    for part in path[:-1]:
        expression = KeyTransform(part, expression)
    if text:
        return _text(KeyTextTransform(path[-1], expression))
    return KeyTransform(path[-1], expression)


def _text(expression: KeyTextTransform) -> Cast:
    # As plain text: a JSON key's own lookups would read the compared string as JSON.
    return Cast(expression, output_field=CharField())


def _attribute(runs: QuerySet[Run], condition: Condition, alias: str) -> QuerySet[Run]:
    name = condition.path[0]
    if name == "name":  # a platform run is named by its experiment
        title = Coalesce(NullIf("name", Value("")), "experiment__name", output_field=CharField())
        runs = runs.alias(**{alias: title})
    else:
        column = {"experiment": "experiment_id"}.get(name, name)
        runs = runs.alias(**{alias: Cast(column, output_field=_output(name))})
    return runs.filter(_compare(alias, condition, json=False))


def _output(name: str) -> Any:
    return FloatField() if name in ("step", "experiment") else CharField()


def _compare(alias: str, condition: Condition, *, json: bool) -> Q:
    op, value = condition.op, condition.value
    if op == "like":
        return Q(**{f"{alias}__iregex": _like_regex(str(value))})
    if op == "!=":
        return Q(**{f"{alias}__isnull": False}) & ~Q(**{alias: value})
    found = Q(**{f"{alias}__{LOOKUPS[op]}": value})
    if json and isinstance(value, float) and op != "=":
        # Inside JSON, strings and nulls sort beside numbers: keep to the finite numbers.
        found &= Q(**{f"{alias}__gte": -FLOAT_MAX, f"{alias}__lte": FLOAT_MAX})
    return found


def _like_regex(pattern: str) -> str:
    """SQL LIKE's ``%`` and ``_`` as an anchored regular expression, the rest literal."""
    body = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return f"^{body}$"
