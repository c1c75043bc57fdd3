"""Serializers generated from configuration dataclasses, for the OpenAPI schema.

A configuration dataclass (the experiment's in ``experiments.config``, a saved curriculum's in
``tasks_app.curriculum``, the engine's in ``training.config``) defines each of its fields once:
its type, default, range, allowed values (``training.field_spec``) and help (its docstring). A
serializer built here says the same, so the schema states exactly what the parser
(``training.field_spec.load``) enforces. Two shapes: ``stored`` (a saved configuration, every
field present) and ``input`` (what a caller sends: fields with a default may be left out).
Validation stays with the parser; these serializers describe.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any, Literal

from rest_framework import serializers

from training.field_spec import CHOICES, FIELDS_OF, ITEMS, field_metadata, hints, optional
from training.fields import RANGE, Range

from .serializers import field_docs

Shape = Literal["stored", "input"]
OMITTED_WHEN_NULL = "omitted_when_null"
"""Name of a dataclass's ClassVar listing fields its stored form leaves out when null."""


class DataclassSerializers:
    """Serializer classes for dataclasses, one per (class, shape), each named in the schema by
    ``names`` (default: the class's name), with ``input_suffix`` appended for the input shape."""

    def __init__(self, names: Mapping[type, str], *, input_suffix: str = "Input") -> None:
        self.names = names
        self.input_suffix = input_suffix
        self._built: dict[tuple[type, Shape], type[serializers.Serializer]] = {}

    def __call__(self, cls: type, shape: Shape) -> type[serializers.Serializer]:
        """A serializer class with a field for each of ``cls``'s fields (nested dataclasses
        get theirs)."""
        key = (cls, shape)
        if key not in self._built:
            fields = {f.name: self._field(cls, f, hint, shape) for f, hint in _fields(cls)}
            doc = cls.__doc__ or ""  # a dataclass without one has its signature there
            doc = "" if doc.startswith(f"{cls.__name__}(") else doc
            name = self._title(cls, shape, cls.__name__)
            self._built[key] = type(
                f"{name}Serializer", (serializers.Serializer,), {**fields, "__doc__": doc}
            )
        return self._built[key]

    def _title(self, cls: type, shape: Shape, default: str) -> str:
        return self.names.get(cls, default) + (self.input_suffix if shape == "input" else "")

    def _field(
        self, cls: type, f: dataclasses.Field[Any], hint: Any, shape: Shape
    ) -> serializers.Field:
        meta = field_metadata(cls, f.name)
        kwargs: dict[str, Any] = {"help_text": _help(cls, f.name, meta) or None}
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        omitted_when_null = f.name in getattr(cls, OMITTED_WHEN_NULL, ())
        if shape == "input" and has_default:
            kwargs["required"] = False
            if f.default is not dataclasses.MISSING and not dataclasses.is_dataclass(f.default):
                kwargs["default"] = list(f.default) if isinstance(f.default, tuple) else f.default
        elif shape == "stored" and omitted_when_null:
            kwargs["required"] = False
        inner, nullable = optional(hint)
        if nullable and not (shape == "stored" and omitted_when_null):
            kwargs["allow_null"] = True
        if FIELDS_OF in meta:
            classes, leave_out = meta[FIELDS_OF]
            return self._union_of(classes, leave_out, shape, f.name)(**kwargs)
        return self._typed(inner, meta, shape, kwargs)

    def _typed(
        self, hint: Any, meta: dict[str, Any], shape: Shape, kwargs: dict[str, Any]
    ) -> serializers.Field:
        if dataclasses.is_dataclass(hint):
            kwargs.pop("default", None)
            return self(typing.cast(type, hint), shape)(**kwargs)
        origin = typing.get_origin(hint)
        if origin in (list, tuple):
            args = typing.get_args(hint)
            no_sizes = (len(args), len(args)) if origin is tuple else (None, None)
            fewest, most = meta.get(ITEMS, no_sizes)
            each = {k: v for k, v in meta.items() if k == RANGE}
            child = self._typed(args[0], each, shape, {})
            sizes = {"min_length": fewest, "max_length": most}
            return serializers.ListField(
                child=child, **{k: v for k, v in sizes.items() if v is not None}, **kwargs
            )
        if origin is dict or hint is dict:
            return serializers.DictField(**kwargs)
        if CHOICES in meta:
            return serializers.ChoiceField(choices=list(meta[CHOICES]), **kwargs)
        bounds: Range | None = meta.get(RANGE)
        if bounds is not None and hint in (int, float):
            low, high = _bound(hint, bounds.low), _bound(hint, bounds.high)
            kwargs |= {"min_value": low, "max_value": high}
        kinds: dict[Any, type[serializers.Field]] = {
            int: serializers.IntegerField,
            float: serializers.FloatField,
            bool: serializers.BooleanField,
            str: serializers.CharField,
        }
        return kinds[hint](**kwargs)

    def _union_of(
        self, classes: tuple[type, ...], leave_out: frozenset[str], shape: Shape, field_name: str
    ) -> type[serializers.Serializer]:
        """One object with the fields of any of ``classes`` but ``leave_out`` (which class
        applies is chosen by another field): a field's range and help are its first class's;
        no field is required and none has a default, as both depend on the class."""
        merged: dict[str, tuple[type, Any]] = {}
        for cls in classes:
            for f, hint in _fields(cls):
                if f.name not in leave_out:
                    merged.setdefault(f.name, (cls, hint))
        fields = {}
        for name, (cls, hint) in merged.items():
            meta = field_metadata(cls, name)
            inner, nullable = optional(hint)
            kwargs = {"help_text": _help(cls, name, meta) or None, "required": False}
            if nullable:
                kwargs["allow_null"] = True
            fields[name] = self._typed(inner, meta, shape, kwargs)
        title = self._title(classes[0], shape, field_name.title())
        return type(f"{title}Serializer", (serializers.Serializer,), fields)


def _fields(cls: type) -> list[tuple[dataclasses.Field[Any], Any]]:
    types = hints(cls)
    return [(f, types[f.name]) for f in dataclasses.fields(cls)]


def _bound(hint: Any, value: float) -> float:
    return int(value) if hint is int else value


def _help(cls: type, name: str, meta: dict[str, Any]) -> str:
    text = field_docs(cls).get(name, "")
    bounds: Range | None = meta.get(RANGE)
    if bounds is not None and (bounds.low_open or bounds.high_open):
        # OpenAPI's minimum and maximum include their ends; say which one does not.
        text = f"{text} Accepted: {bounds.describe()}.".strip()
    return text
