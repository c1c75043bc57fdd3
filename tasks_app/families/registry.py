"""The one registry of task-family kinds: kind name -> dotted path of a same-shaped module.

Pure Python: no Django import. Built-in kinds are listed here; a deployment adds its own
through the ``TASK_FAMILY_KINDS`` setting, which the Django layer passes in as ``extra`` so
this module never reads settings. Modules are imported lazily, on first use.

A kind module exposes: ``name``, ``label``, ``description``, ``difficulty_levels``,
``prompt_template``, ``params_schema`` (JSON Schema), ``procedural`` and ``importable`` flags,
``record_fields`` (import columns it reads), ``generate(n, *, difficulty, seed, params)``,
``from_record(record, params)`` (both taking ``template=``, a family's own prompt template with
the placeholders of ``prompt_template``), ``reference_response(task)``, ``extract_answer(response)``
and ``default_verifier()`` (a fresh verifier spec: what the kind's tasks are judged by when no
verifier is chosen, defined nowhere else); optionally ``required_fields`` (the record fields a row
must have; by default all but ``OPTIONAL_FIELDS``). Copy an existing kind to add one.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

_PKG = "tasks_app.families"

BUILTIN_KINDS: dict[str, str] = {
    "arithmetic": f"{_PKG}.arithmetic",
    "string-ops": f"{_PKG}.string_ops",
    "python-function": f"{_PKG}.python_function",
    "math-word": f"{_PKG}.math_word",
    "json-schema": f"{_PKG}.json_schema",
    "sql-query": f"{_PKG}.sql_query",
    "digit-sort": f"{_PKG}.digit_sort",
    "guess-number": f"{_PKG}.guess_number",
}

REQUIRED_ATTRIBUTES = (
    "name",
    "label",
    "description",
    "difficulty_levels",
    "prompt_template",
    "params_schema",
    "procedural",
    "importable",
    "record_fields",
    "generate",
    "from_record",
    "reference_response",
    "extract_answer",
    "default_verifier",
)


OPTIONAL_FIELDS = ("difficulty", "source_id")
"""Record fields every kind reads but no row needs: a level has a default, an id is a label."""


class UnknownKind(KeyError):
    """No family kind is registered under this name."""


def kind_paths(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Built-in kinds plus ``extra`` (later entries win, so a setting may override a kind)."""
    return {**BUILTIN_KINDS, **(extra or {})}


def load_kind(name: str, extra: Mapping[str, str] | None = None) -> ModuleType:
    """The module for kind ``name``; checks it has the full shape so a bad plug-in fails early."""
    paths = kind_paths(extra)
    if name not in paths:
        raise UnknownKind(f"unknown family kind {name!r}; known: {sorted(paths)}")
    module = importlib.import_module(paths[name])
    missing = [attr for attr in REQUIRED_ATTRIBUTES if not hasattr(module, attr)]
    if missing:
        raise TypeError(f"family kind {name!r} ({paths[name]}) lacks {missing}")
    return module


def required_fields(module: ModuleType) -> list[str]:
    """The record fields an imported row must have, in ``record_fields`` order."""
    declared = getattr(module, "required_fields", None)
    if declared is not None:
        return [f for f in module.record_fields if f in declared]
    return [f for f in module.record_fields if f not in OPTIONAL_FIELDS]


def describe_kinds(extra: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """JSON-able summary of every kind, for the family form and the API."""
    return [describe_kind(load_kind(name, extra)) for name in kind_paths(extra)]


def describe_kind(module: ModuleType) -> dict[str, Any]:
    return {
        "name": module.name,
        "label": module.label,
        "description": module.description,
        "difficulty_levels": list(module.difficulty_levels),
        "prompt_template": module.prompt_template,
        "params_schema": module.params_schema,
        "procedural": module.procedural,
        "importable": module.importable,
        "record_fields": list(module.record_fields),
        "required_fields": required_fields(module),
        "default_verifier": module.default_verifier(),
    }
