"""The algorithms an experiment may name and their hyper-parameters, read from the engine's configs.

Pure Python (no Django). Each field comes with its type, its default and its one-line help,
taken from the attribute docstring under it in ``training/config.py``, so the wizard's form
and the engine cannot drift apart: a field added to a config appears in the form with the
sentence written beside it. The named presets (``training.presets``) come with the same help
for every value they set, and the reason the recipe sets it.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import re
import textwrap
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any

from training.config import CONFIGS, BaseConfig, RLConfig, SamplingConfig, field_range
from training.presets import MIN_PROMPTS_TO_LEARN, PRESETS

from .config import RESERVED_HYPERPARAMETERS

NESTED = {"sampling": SamplingConfig}
"""Nested configs shown as ``<name>.<field>``; ``model`` is not one (``config.model`` sets it)."""
BACKTICKED = re.compile(r"`([A-Za-z0-9_]+)`")


@dataclass(frozen=True)
class RangeSpec:
    """The values a numeric field accepts, as the engine's config documents and checks them."""

    low: float
    high: float
    low_open: bool
    """True: ``low`` itself is refused (the field must be above it)."""
    high_open: bool
    """True: ``high`` itself is refused (the field must be below it)."""
    text: str
    """The range in words: ``from 1 to 1024``, ``above 0 and at most 1``."""


@dataclass(frozen=True)
class FieldSpec:
    path: str
    """``learning_rate``, or ``sampling.temperature`` for a nested field."""
    type: str
    """``int``, ``float``, ``bool``, ``str`` or ``float_pair`` (a list of two numbers)."""
    nullable: bool
    default: Any
    help: str
    choices: list[str] | None
    """The values a text field accepts, when its help names them and its default is one."""
    range: RangeSpec | None = None
    """What a numeric field accepts (each of a pair's numbers); None for other fields."""


@dataclass(frozen=True)
class AlgorithmSpec:
    name: str
    summary: str
    fields: list[FieldSpec]
    min_prompts: int | None = None
    """Fewer planned prompts (steps x prompts per step) than this are too few to move the
    policy (``training.presets.MIN_PROMPTS_TO_LEARN``); None where no run size was measured."""


@dataclass(frozen=True)
class PresetValue:
    path: str
    value: Any
    help: str
    """What the field is (the engine config's docstring)."""
    why: str
    """Why the recipe sets it so; empty for a value that only completes the recipe."""


@dataclass(frozen=True)
class PresetSpec:
    name: str
    title: str
    algorithm: str
    summary: str
    source: str
    values: list[PresetValue]
    measured: str
    """What its run size did to held-out success on the demo task, and how it was measured."""


@cache
def algorithms() -> list[AlgorithmSpec]:
    return [_algorithm(name, cls) for name, cls in CONFIGS.items()]


@cache
def presets() -> list[PresetSpec]:
    """Every preset with each value it sets, explained (its help and its reason)."""
    helps = {spec.name: {f.path: f.help for f in spec.fields} for spec in algorithms()}
    return [
        PresetSpec(
            p.name,
            p.title,
            p.algorithm,
            p.summary,
            p.source,
            [
                PresetValue(path, value, helps[p.algorithm].get(path, ""), p.why.get(path, ""))
                for path, value in p.values.items()
            ],
            p.measured,
        )
        for p in PRESETS
    ]


def _algorithm(name: str, cls: type[BaseConfig]) -> AlgorithmSpec:
    defaults = json.loads(json.dumps(cls().to_dict()))
    fields: list[FieldSpec] = []
    for f in dataclasses.fields(cls):
        if f.name in RESERVED_HYPERPARAMETERS or f.name == "model":
            continue
        if f.name in NESTED:
            nested = NESTED[f.name]
            fields += [
                _field(f"{f.name}.{g.name}", nested, g.name, defaults[f.name][g.name])
                for g in dataclasses.fields(nested)
            ]
        else:
            fields.append(_field(f.name, cls, f.name, defaults[f.name]))
    min_prompts = MIN_PROMPTS_TO_LEARN if issubclass(cls, RLConfig) else None
    return AlgorithmSpec(name, _summary(cls), fields, min_prompts)


def _field(path: str, cls: type, name: str, default: Any) -> FieldSpec:
    hint = typing.get_type_hints(cls)[name]
    kind, nullable = _kind(hint)
    text = _docstrings(cls).get(name, "")
    choices = _choices(kind, text, default, cls, name)
    return FieldSpec(path, kind, nullable, default, text, choices, _range(cls, name))


def _range(cls: type, name: str) -> RangeSpec | None:
    bounds = field_range(cls, name)
    if bounds is None:
        return None
    return RangeSpec(bounds.low, bounds.high, bounds.low_open, bounds.high_open, bounds.describe())


def _kind(hint: Any) -> tuple[str, bool]:
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        return _kind(rest[0])[0], True
    if typing.get_origin(hint) is tuple:
        return "float_pair", False
    names = {bool: "bool", int: "int", float: "float", str: "str"}
    return names.get(hint, "str"), False


def _choices(kind: str, text: str, default: Any, cls: type, name: str) -> list[str] | None:
    """Backticked words of the field's help in the nearest class that names several, kept
    only when the default is among them (a word in backticks is not always a value)."""
    if kind != "str":
        return None
    for klass in cls.__mro__:
        words = list(dict.fromkeys(BACKTICKED.findall(_docstrings(klass).get(name, ""))))
        if len(words) >= 2:
            return words if default in words else None
    return None


def _summary(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    return " ".join(doc.split("\n\n")[0].split())


@cache
def _own_docstrings(cls: type) -> dict[str, str]:
    """``{field: docstring}`` for the attribute docstrings written in ``cls``'s own body."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0]
    out: dict[str, str] = {}
    statements = getattr(body, "body", [])
    for node, after in zip(statements, statements[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            out[node.target.id] = " ".join(after.value.value.split())
    return out


def _docstrings(cls: type) -> dict[str, str]:
    """Attribute docstrings along the MRO; a subclass's own sentence wins."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            out.update(_own_docstrings(klass))
    return out
