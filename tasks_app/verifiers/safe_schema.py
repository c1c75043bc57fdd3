"""User-written JSON Schemas: measured and checked first, then validated with a time limit.

A schema from a user (a verifier's params, a task's ``expected["schema"]``, an imported row)
cannot go to jsonschema as it is: a large one takes seconds to check against the meta-schema,
``pattern`` and ``patternProperties`` are matched with Python's ``re`` (no time limit),
``$ref`` may name any URL (jsonschema still fetches http(s) and file URLs by default), and a
subschema that names its ``$schema`` is validated by a stock validator, outside any limit set
here. So a schema is first measured (canonical JSON bytes, values, depth), then refused when
it names ``$schema`` below its top, refers outside itself, or combines ``patternProperties``
with ``unevaluatedProperties`` (jsonschema matches those keys with ``re`` in a helper that no
keyword can replace), or when a pattern is not usable. It is then validated by Draft 2020-12
extended so that every pattern goes through :mod:`tasks_app.verifiers.safe_regex`, every
keyword checks one deadline for the whole validation, and no reference is ever retrieved.

Pure Python: no Django import.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import referencing
from jsonschema.exceptions import ValidationError

from tasks_app.verifiers import safe_regex

SCHEMA_LIMIT_BYTES = 64 * 1024  # canonical JSON; checking against the meta-schema is linear in it
SCHEMA_VALUE_LIMIT = 5_000  # JSON values (objects, arrays, scalars) in the schema
SCHEMA_DEPTH_LIMIT = 32  # objects and arrays nested in each other
VALIDATION_TIMEOUT_S = 1.0  # one validation: every keyword and pattern together

_STOCK = jsonschema.Draft202012Validator
Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterator[ValidationError]]


@dataclass
class _Found:
    """What the checks below look at, gathered in one walk over the schema."""

    patterns: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    keywords: set[str] = field(default_factory=set)
    nested_dialect: bool = False

    def note(self, obj: dict[str, Any], depth: int) -> None:
        if isinstance(obj.get("pattern"), str):
            self.patterns.append(obj["pattern"])
        if isinstance(obj.get("patternProperties"), dict):
            self.patterns.extend(obj["patternProperties"])
            self.keywords.add("patternProperties")
        if "unevaluatedProperties" in obj:
            self.keywords.add("unevaluatedProperties")
        self.refs += [obj[k] for k in ("$ref", "$dynamicRef") if isinstance(obj.get(k), str)]
        self.nested_dialect |= depth > 0 and isinstance(obj.get("$schema"), str)


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a JSON Schema this platform will validate with, or None."""
    found = _walk(schema)
    if isinstance(found, str):
        return found
    try:
        text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        return f"must be plain JSON ({exc})"
    if len(text.encode()) > SCHEMA_LIMIT_BYTES:
        return f"is larger than {SCHEMA_LIMIT_BYTES // 1024} KiB as JSON"
    return _shape_problem(found) or _meta_schema_problem(text)


def _walk(schema: Any) -> _Found | str:
    found, stack, values = _Found(), [(schema, 0)], 0
    while stack:
        value, depth = stack.pop()
        values += 1
        if values > SCHEMA_VALUE_LIMIT:
            return f"has more than {SCHEMA_VALUE_LIMIT:,} values"
        if depth > SCHEMA_DEPTH_LIMIT:
            return f"nests deeper than {SCHEMA_DEPTH_LIMIT} levels"
        if isinstance(value, dict):
            found.note(value, depth)
            stack += [(item, depth + 1) for item in value.values()]
        elif isinstance(value, list):
            stack += [(item, depth + 1) for item in value]
    return found


def _shape_problem(found: _Found) -> str | None:
    if found.nested_dialect:
        return "may name its $schema only at the top"
    outside = [ref for ref in found.refs if not ref.startswith("#")]
    if outside:
        return f"$ref {outside[0]!r} must point inside the schema (start with '#')"
    if {"patternProperties", "unevaluatedProperties"} <= found.keywords:
        return "cannot combine patternProperties with unevaluatedProperties"
    for pattern in found.patterns:
        problem = safe_regex.pattern_problem(pattern)
        if problem:
            return f"pattern {pattern[:80]!r} {problem}"
    return None


@functools.lru_cache(maxsize=256)
def _meta_schema_problem(text: str) -> str | None:
    """Checked once per distinct schema: training judges one task's schema many times."""
    try:
        _STOCK.check_schema(json.loads(text))
    except jsonschema.SchemaError as exc:
        return f"is not a valid JSON Schema ({exc.message[:300]})"
    return None


def validation_errors(schema: Any, instance: Any) -> list[ValidationError]:
    """Every way ``instance`` fails ``schema`` (which passed schema_problem), in order.

    Raises safe_regex.TimeLimit past VALIDATION_TIMEOUT_S.
    """
    if isinstance(schema, dict):  # the top's $schema: always validated as Draft 2020-12
        schema = {key: value for key, value in schema.items() if key != "$schema"}
    validator = _SafeValidator(schema, registry=referencing.Registry())  # nothing retrieved
    with safe_regex.time_limit(VALIDATION_TIMEOUT_S):
        return list(validator.iter_errors(instance))


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Any:
    if validator.is_type(instance, "string") and not safe_regex.search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if safe_regex.search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Any:
    """The stock keyword, but with patternProperties' keys matched through safe_regex."""
    if "patternProperties" not in schema or not validator.is_type(instance, "object"):
        yield from _STOCK.VALIDATORS["additionalProperties"](validator, additional, instance, schema)
        return
    named, patterns = schema.get("properties", {}), schema["patternProperties"]
    extras = [
        key
        for key in instance
        if key not in named and not any(safe_regex.search(p, key) for p in patterns)
    ]
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif additional is False and extras:
        listed = ", ".join(repr(key) for key in sorted(extras))
        yield ValidationError(f"{listed} not allowed: no property or pattern covers it")


def _timed(keyword: Keyword) -> Keyword:
    def timed(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Any:
        safe_regex.check_time()  # nested applicators ($ref, anyOf...) add up: one deadline
        yield from keyword(validator, value, instance, schema)

    return timed


_KEYWORDS: dict[str, Keyword] = {
    **_STOCK.VALIDATORS,
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}
_SafeValidator = jsonschema.validators.extend(
    _STOCK, {name: _timed(keyword) for name, keyword in _KEYWORDS.items()}
)
