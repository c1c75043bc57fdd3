"""What a config field accepts, beyond its numeric range, carried in the field's metadata.

`training.fields` puts a numeric field's `Range` under `RANGE`; `setting` adds the other keys a
parser of JSON needs (the allowed strings, a list's length, a check, one reason for any problem,
a cast of the accepted value) so that a dataclass is the one definition of its part of a
configuration: its fields' types, defaults, ranges and (in their docstrings) help.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from training.fields import RANGE, Range

CHOICES = "choices"
"""The strings a field accepts, in the order to show them."""
ITEMS = "items"
"""A list field's (fewest, most) items; None where unbounded."""
CHECK = "check"
"""A check on a well-typed value: a function returning the reason it is refused, or None."""
MESSAGE = "message"
"""The one reason given for any problem with the field (its type, range or check)."""
CAST = "cast"
"""A function applied to an accepted value (``float``, ``str.strip``)."""
T = TypeVar("T")

FIELDS_OF = "fields_of"
"""For a ``dict`` field: (the dataclasses whose fields it holds, one of them chosen elsewhere;
the names among those fields that it may not hold)."""


def setting(
    default: Any = dataclasses.MISSING,
    *,
    factory: Any = dataclasses.MISSING,
    bounds: Range | None = None,
    choices: tuple[str, ...] | None = None,
    items: tuple[int | None, int | None] | None = None,
    check: Callable[[Any], str | None] | None = None,
    message: str | None = None,
    cast: Callable[[Any], Any] | None = None,
    fields_of: tuple[tuple[type, ...], frozenset[str]] | None = None,
) -> Any:
    """A dataclass field and what it accepts; without a default or factory it is required."""
    given = {
        RANGE: bounds,
        CHOICES: choices,
        ITEMS: items,
        CHECK: check,
        MESSAGE: message,
        CAST: cast,
        FIELDS_OF: fields_of,
    }
    metadata = {key: value for key, value in given.items() if value is not None}
    return dataclasses.field(default=default, default_factory=factory, metadata=metadata)


def field_metadata(cls: type, name: str) -> dict[str, Any]:
    """Field ``name``'s metadata gathered up ``cls``'s classes, the nearest winning: a subclass
    may override a field's default without repeating what the field accepts."""
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            for f in dataclasses.fields(klass):
                if f.name == name:
                    found |= dict(f.metadata)
    if isinstance(found.get(RANGE), tuple):  # spelled as plain data where the engine is not
        found[RANGE] = Range(*found[RANGE])  # imported (tasks_app's pure modules)
    return found


# --- loading JSON into the dataclasses --------------------------------------------------------


class Problems(ValueError):
    """Every problem found, each as (field path, reason)."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))
        self.errors = errors


def load(cls: type[T], data: Any, path: str = "") -> T:
    """``data`` (parsed JSON) as a ``cls``, walking its fields (nested dataclasses, lists,
    optional values) against their types and metadata; Problems names every bad field's path.

    Missing fields take their defaults; keys that are not fields are refused. A dataclass whose
    fields are all good then has its ``problems()`` (checks across its fields, paths relative to
    it) asked, if it has one."""
    errors: list[tuple[str, str]] = []
    value = _object(cls, data, path, errors)
    if errors:
        raise Problems(errors)
    return typing.cast(T, value)


def hints(cls: type) -> dict[str, Any]:
    """The resolved type of each of ``cls``'s fields."""
    resolved = typing.get_type_hints(cls)
    return {f.name: resolved[f.name] for f in dataclasses.fields(cls)}


def optional(hint: Any) -> tuple[Any, bool]:
    """``X`` and whether None is allowed, for ``X | None`` (or ``X``)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(args) < len(typing.get_args(hint)):
            return args[0], True
    return hint, False


def describe(hint: Any) -> str:
    """The JSON type ``hint`` needs, as a reason says it."""
    names = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}
    if hint in names:
        return names[hint]
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {describe(args[0]).removeprefix('a ')}s"
        return f"a list of {len(args)} numbers"
    if origin is list:
        return "a list"
    return "an object"


def _object(cls: type, data: Any, path: str, errors: list[tuple[str, str]]) -> Any:
    if not isinstance(data, dict):
        errors.append((path, "must be an object"))
        return None
    before = len(errors)
    names = {f.name for f in dataclasses.fields(cls)}
    errors += [(_join(path, k), "unknown field") for k in sorted(set(data) - names, key=str)]
    values: dict[str, Any] = {}
    for f, hint in zip(dataclasses.fields(cls), hints(cls).values(), strict=True):
        where = _join(path, f.name)
        if f.name in data:
            values[f.name] = _field(hint, field_metadata(cls, f.name), data[f.name], where, errors)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            errors.append((where, "this field is required"))
    if len(errors) > before:
        return None
    value = cls(**values)
    check = getattr(value, "problems", None)
    if check is not None:
        errors += [(_join(path, sub), why) for sub, why in check()]
    return value


def _field(
    hint: Any, meta: dict[str, Any], data: Any, path: str, errors: list[tuple[str, str]]
) -> Any:
    found: list[tuple[str, str]] = []
    value = _value(hint, meta, data, path, found)
    if not found and CHECK in meta and value is not None:
        reason = meta[CHECK](value)
        if reason:
            found.append((path, reason))
    if found and MESSAGE in meta:
        found = [(path, meta[MESSAGE])]
    errors += found
    return meta[CAST](value) if CAST in meta and value is not None and not found else value


def _value(
    hint: Any, meta: dict[str, Any], data: Any, path: str, errors: list[tuple[str, str]]
) -> Any:
    hint, nullable = optional(hint)
    if data is None:
        if not nullable:
            errors.append((path, f"must be {describe(hint)}"))
        return None
    if dataclasses.is_dataclass(hint):
        return _object(typing.cast(type, hint), data, path, errors)
    origin = typing.get_origin(hint)
    if origin in (list, tuple):
        return _sequence(hint, meta, data, path, errors)
    if origin is dict or hint is dict:
        if not isinstance(data, dict):
            errors.append((path, "must be an object"))
        return data
    return _scalar(hint, meta, data, path, errors)


def _sequence(
    hint: Any, meta: dict[str, Any], data: Any, path: str, errors: list[tuple[str, str]]
) -> Any:
    args = typing.get_args(hint)
    is_tuple = typing.get_origin(hint) is tuple
    if not isinstance(data, list) or (is_tuple and len(data) != len(args)):
        errors.append((path, f"must be {describe(hint)}"))
        return None
    fewest, most = meta.get(ITEMS, (None, None))
    if fewest is not None and len(data) < fewest:
        errors.append((path, f"must have at least {fewest} item{'s' * (fewest != 1)}"))
        return None
    if most is not None and len(data) > most:
        errors.append((path, f"must have at most {most} items"))
        return None
    kinds = args if is_tuple else [args[0]] * len(data)
    each = {k: v for k, v in meta.items() if k == RANGE}  # a range bounds every item
    items = [
        _value(k, each, v, f"{path}[{i}]", errors)
        for i, (k, v) in enumerate(zip(kinds, data, strict=True))
    ]
    return tuple(items) if is_tuple else items


def _scalar(
    hint: Any, meta: dict[str, Any], data: Any, path: str, errors: list[tuple[str, str]]
) -> Any:
    if not _is(hint, data):
        errors.append((path, f"must be {describe(hint)}"))
        return None
    bounds: Range | None = meta.get(RANGE)
    if bounds is not None and not bounds.contains(data):
        errors.append((path, f"must be {describe(hint)} {bounds.describe()}"))
    choices = meta.get(CHOICES)
    if choices is not None and data not in choices:
        errors.append((path, f"must be one of {', '.join(choices)}"))
    return data


def _is(hint: Any, value: Any) -> bool:
    if hint is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if hint is int:
        return isinstance(value, int)
    if hint is float:
        return isinstance(value, (int, float)) and math.isfinite(value)
    if hint is str:
        return isinstance(value, str)
    return True


def _join(path: str, name: object) -> str:
    return f"{path}.{name}" if path else str(name)


def build(cls: type[T], data: Mapping[str, Any]) -> T:
    """A ``cls`` from the form ``dataclasses.asdict`` gave of one, nested dataclasses and tuples
    rebuilt and nothing checked again: for a stored form written after ``load`` checked it.
    A field missing from ``data`` takes its default."""
    types_ = hints(cls)
    values = {name: _rebuilt(types_[name], value) for name, value in data.items()}
    return cls(**values)


def _rebuilt(hint: Any, value: Any) -> Any:
    hint, _ = optional(hint)
    if value is None:
        return None
    if dataclasses.is_dataclass(hint):
        return build(typing.cast(type, hint), value)
    args = typing.get_args(hint)
    if typing.get_origin(hint) is list:
        return [_rebuilt(args[0], item) for item in value]
    if typing.get_origin(hint) is tuple:
        return tuple(_rebuilt(arg, item) for arg, item in zip(args, value, strict=True))
    return value
