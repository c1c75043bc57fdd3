"""Helpers every family kind shares: parameter validation, answer extraction, field coercion.

Pure Python: no Django import. Kind modules stay small and same-shaped by leaning on these.
"""

from __future__ import annotations

import math
import random
import re
import string
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema

from tasks_app.families.base import RowError, Task

_ANSWER_RE = re.compile(r"answer\s*:\s*(.+)", re.IGNORECASE)
_FENCE_RE = re.compile(r"```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_NUMBER_RE = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


class ParamsInvalid(ValueError):
    """Generator or import parameters failed validation; ``errors`` maps field -> reason."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


def validate_params(schema: Mapping[str, Any], params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check ``params`` against a kind's JSON Schema and fill in the schema's defaults."""
    if params is not None and not isinstance(params, Mapping):
        raise ParamsInvalid({"params": "must be an object"})
    params = dict(params or {})
    validator = jsonschema.Draft202012Validator(schema)
    errors = {
        ".".join(str(p) for p in err.absolute_path) or "params": err.message
        for err in validator.iter_errors(params)
    }
    if errors:
        raise ParamsInvalid(errors)
    defaults = {k: v["default"] for k, v in schema.get("properties", {}).items() if "default" in v}
    return {**defaults, **params}


def seeded_rng(seed: int, *parts: object) -> random.Random:
    """A generator seeded by the seed plus the call's arguments, so each batch is reproducible."""
    return random.Random(f"{seed}:" + ":".join(str(p) for p in parts))


def check_level(levels: list[int], difficulty: int) -> int:
    if difficulty not in levels:
        raise ParamsInvalid({"difficulty": f"must be one of {levels}, got {difficulty!r}"})
    return difficulty


def tagged_answer(response: str) -> str | None:
    """The text after the last ``Answer:`` marker, stripped of a trailing full stop."""
    matches = [m.group(1).strip() for m in _ANSWER_RE.finditer(response)]
    matches = [m for m in matches if m]
    return matches[-1].rstrip(".").strip() if matches else None


def fenced_block(response: str, languages: set[str]) -> str | None:
    """The first fenced block tagged with one of ``languages``, else the first untagged one."""
    blocks = [(lang.lower(), body.strip("\n")) for lang, body in _FENCE_RE.findall(response)]
    tagged = [body for lang, body in blocks if lang in languages]
    untagged = [body for lang, body in blocks if not lang]
    return (tagged or untagged or [None])[0]


def parse_number(text: str) -> int | float | None:
    """A number written the way answers are (``1,234``, ``$18``, ``-3.5``); None if absent."""
    matches = _NUMBER_RE.findall(text.replace("$", ""))
    if not matches:
        return None
    value = float(matches[-1].replace(",", ""))
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else value


def require_text(record: Mapping[str, Any], field: str) -> str:
    """A non-empty string field of an imported row, or a RowError naming the field."""
    value = record.get(field)
    if value is None or value == "":
        raise RowError(field, "is required")
    if not isinstance(value, str):
        raise RowError(field, f"must be text, got {type(value).__name__}")
    return value


def optional_text(record: Mapping[str, Any], field: str) -> str:
    value = record.get(field)
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise RowError(field, f"must be text, got {type(value).__name__}")
    return value


def proxy_level(score: float, thresholds: Sequence[float]) -> int:
    """Level 1 plus the number of ``thresholds`` that ``score`` exceeds (levels 1..len + 1).

    Imported data sets rarely carry a difficulty; a kind grades them by a documented proxy
    until a model's measured pass rate (the grading job) replaces it.
    """
    return 1 + sum(score > threshold for threshold in thresholds)


def difficulty_meta(record: Mapping[str, Any], proxy: str) -> dict[str, str]:
    """Where a task's level came from: the row's own field, or the kind's proxy."""
    given = record.get("difficulty") not in (None, "")
    return {"difficulty_source": "field" if given else f"proxy:{proxy}"}


def row_difficulty(record: Mapping[str, Any], levels: list[int], default: int) -> int:
    """The ``difficulty`` field of a row as one of ``levels`` (CSV gives it as text)."""
    value = record.get("difficulty")
    if value is None or value == "":
        return default
    try:
        level = int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        raise RowError("difficulty", f"must be a whole number, got {value!r}") from None
    if isinstance(value, bool) or level not in levels:
        raise RowError("difficulty", f"must be one of {levels}, got {value!r}")
    return level


def answer_verifier(extract: str, check: dict[str, Any]) -> dict[str, Any]:
    """A verifier spec that extracts one final answer and judges it with the layer ``check``:
    the default of the kinds whose tasks have a single expected answer."""
    return {"extract": extract, "layers": [check], "reward": {"weights": {"outcome": 1.0}}}


def not_procedural(kind: str) -> NotImplementedError:
    return NotImplementedError(f"{kind} tasks are imported, not generated")


def template_fields(template: str) -> list[str]:
    """The placeholders of a ``str.format`` template, in order; ValueError if it is malformed."""
    return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]


def template_problem(template: str, kind_template: str) -> str | None:
    """Why a family's prompt template cannot stand in for its kind's, or None.

    It may use only the kind's own placeholders, bare: ``{question.__class__}`` would reach
    into objects and ``{question:>999999999}`` would pad a prompt to a gigabyte.
    """
    allowed = template_fields(kind_template)
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"is not a valid template ({exc}); write a literal brace as {{{{ or }}}}"
    names = [name for _, name, _, _ in parts if name is not None]
    wanted = ", ".join("{" + n + "}" for n in dict.fromkeys(allowed))
    unknown = [n for n in names if n not in allowed]
    if unknown:
        return f"uses {{{unknown[0]}}}; this kind fills {wanted}"
    if any(spec or conversion for _, name, spec, conversion in parts if name is not None):
        return f"placeholders take no format or conversion; use {wanted}"
    if not names:
        return f"must use at least one of {wanted}, or every prompt would be the same"
    return None


def fill(template: str, **values: str) -> str:
    """The prompt: ``template`` (checked by ``template_problem``) with its placeholders filled."""
    return template.format(**values)


def exact_answer_record(
    record: Mapping[str, Any], kind: str, levels: list[int], template: str
) -> Task:
    """A Task from an imported ``prompt`` + ``answer`` row, for exact-match kinds; the prompt
    is the row's question in ``template``, nothing else added."""
    prompt = require_text(record, "prompt")
    answer = optional_text(record, "answer").strip()
    if not answer:
        raise RowError("answer", "is required")
    return Task(
        family=kind,
        prompt=fill(template, question=prompt.strip()),
        expected={"answer": answer},
        difficulty=row_difficulty(record, levels, default=levels[0]),
        source_id=optional_text(record, "source_id"),
    )
