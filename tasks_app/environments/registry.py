"""The one registry of environment kinds: kind name -> dotted path of a same-shaped module.

Pure Python: no Django import. Built-in kinds are listed here; a deployment adds its own
through the ``ENVIRONMENT_KINDS`` setting, which the Django layer passes in as ``extra`` so this
module never reads settings, exactly as ``tasks_app.families.registry`` does for family kinds.
Modules are imported lazily, on first use.

An environment kind module exposes: ``name``, ``label``, ``description``, ``family`` (the
family kind whose tasks it plays: what makes its tasks, with their difficulty knob, and the
verifier that judges ``final_state``), ``tools`` (the ``Tool`` list the model may call, empty
for a conversation without tools), ``default_limits`` (an ``EpisodeLimits``) and
``make(params)`` (a fresh ``Environment`` for one episode). Copy an existing kind to add one.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import asdict
from types import ModuleType
from typing import Any

_PKG = "tasks_app.environments"

BUILTIN_KINDS: dict[str, str] = {
    "guess-number": f"{_PKG}.guess_number",
    "python-tool": f"{_PKG}.python_tool",
    "sql-tool": f"{_PKG}.sql_tool",
}

REQUIRED_ATTRIBUTES = (
    "name",
    "label",
    "description",
    "family",
    "tools",
    "default_limits",
    "make",
)


class UnknownEnvironment(KeyError):
    """No environment kind is registered under this name."""


def kind_paths(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Built-in kinds plus ``extra`` (later entries win, so a setting may override a kind)."""
    return {**BUILTIN_KINDS, **(extra or {})}


def load_environment(name: str, extra: Mapping[str, str] | None = None) -> ModuleType:
    """The module for environment kind ``name``, checked for the full shape."""
    paths = kind_paths(extra)
    if name not in paths:
        raise UnknownEnvironment(f"unknown environment kind {name!r}; known: {sorted(paths)}")
    module = importlib.import_module(paths[name])
    missing = [attr for attr in REQUIRED_ATTRIBUTES if not hasattr(module, attr)]
    if missing:
        raise TypeError(f"environment kind {name!r} ({paths[name]}) lacks {missing}")
    return module


def describe_environments(extra: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """JSON-able summary of every environment kind, for forms and the API."""
    return [describe_environment(load_environment(name, extra)) for name in kind_paths(extra)]


def describe_environment(module: ModuleType) -> dict[str, Any]:
    return {
        "name": module.name,
        "label": module.label,
        "description": module.description,
        "family": module.family,
        "tools": [tool.to_dict() for tool in module.tools],
        "default_limits": asdict(module.default_limits),
    }
