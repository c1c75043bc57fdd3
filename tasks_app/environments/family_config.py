"""A family played as an environment: the value of ``TaskFamily.environment``.

Pure Python: no Django import. A family is single-turn when its ``environment`` is null (None).
Otherwise it is this JSON object, always stored complete::

    {
        "kind": "guess-number",          # an environment kind of the registry
        "limits": {                      # every field of EpisodeLimits, always all three
            "max_turns": 7,
            "max_tokens_per_turn": 4,
            "max_total_tokens": 96
        }
    }

The environment kind must play the family's kind (``module.family == family.kind``: the
guess-number environment plays guess-number tasks, python-tool plays math-word, sql-tool plays
sql-query). On input ``limits`` may be omitted or partial: what it leaves out is the kind's
``default_limits``. Unknown keys are refused, and every problem names its field as
``environment``, ``environment.kind`` or ``environment.limits.<field>``. Readers take the
stored value with ``limits_of`` (an ``EpisodeLimits``) and ``kind_of``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields
from typing import Any

from tasks_app.environments.base import EpisodeLimits
from tasks_app.environments.registry import UnknownEnvironment, load_environment

FIELD = "environment"
KEYS = ("kind", "limits")
LIMIT_KEYS = tuple(f.name for f in fields(EpisodeLimits))


class EnvironmentConfigInvalid(ValueError):
    """The environment of a family is not valid; ``errors`` holds (field path, reason) pairs."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {why}" for path, why in errors))
        self.errors = errors


def checked_environment(
    value: Any, family_kind: str, extra: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """The complete stored shape of ``value`` for a family of ``family_kind`` (None stays
    None: a single-turn family); EnvironmentConfigInvalid naming each field that is wrong."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise EnvironmentConfigInvalid([(FIELD, "must be an object {kind, limits} or null")])
    unknown = sorted(str(k) for k in value if k not in KEYS)
    if unknown:
        raise EnvironmentConfigInvalid(
            [(f"{FIELD}.{k}", f"unknown field; known: {', '.join(KEYS)}") for k in unknown]
        )
    kind = value.get("kind")
    if not isinstance(kind, str) or not kind:
        raise EnvironmentConfigInvalid([(f"{FIELD}.kind", "is required (an environment kind)")])
    try:
        module = load_environment(kind, extra)
    except UnknownEnvironment as exc:
        raise EnvironmentConfigInvalid([(f"{FIELD}.kind", str(exc.args[0]))]) from exc
    if module.family != family_kind:
        raise EnvironmentConfigInvalid(
            [
                (
                    f"{FIELD}.kind",
                    f"{kind!r} plays {module.family!r} tasks, not this family's {family_kind!r}",
                )
            ]
        )
    limits = value.get("limits")
    if limits is None:
        limits = {}
    if not isinstance(limits, Mapping):
        raise EnvironmentConfigInvalid([(f"{FIELD}.limits", "must be an object")])
    unknown = sorted(str(k) for k in limits if k not in LIMIT_KEYS)
    if unknown:
        raise EnvironmentConfigInvalid(
            [
                (f"{FIELD}.limits.{k}", f"unknown limit; known: {', '.join(LIMIT_KEYS)}")
                for k in unknown
            ]
        )
    merged = {**asdict(module.default_limits), **limits}
    problems = EpisodeLimits(**merged).problems()
    if problems:
        raise EnvironmentConfigInvalid([(f"{FIELD}.limits.{k}", why) for k, why in problems])
    if merged["max_tokens_per_turn"] > merged["max_total_tokens"]:
        raise EnvironmentConfigInvalid(
            [(f"{FIELD}.limits.max_tokens_per_turn", "must not exceed max_total_tokens")]
        )
    return {"kind": kind, "limits": {k: merged[k] for k in LIMIT_KEYS}}


def kind_of(value: Mapping[str, Any] | None) -> str | None:
    """The environment kind of a stored value; None for a single-turn family."""
    return None if not value else str(value["kind"])


def limits_of(value: Mapping[str, Any]) -> EpisodeLimits:
    """The ``EpisodeLimits`` of a stored (complete) value."""
    return EpisodeLimits(**{k: value["limits"][k] for k in LIMIT_KEYS})
