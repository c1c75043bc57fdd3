"""JSON that must match a JSON Schema and hold the facts stated in the prompt; procedural.

``expected["facts"]`` maps a dotted path ("address.city") to the value the answer must hold
there, which is how the verifier's facts layer reads it. Difficulty = how many fields, how
deeply nested, and whether arrays and enums appear.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import RowError, Task
from tasks_app.verifiers import safe_schema

name = "json-schema"
label = "JSON to a schema"
description = "Produce a JSON object that matches a schema and records the stated facts."
difficulty_levels = [1, 2, 3, 4, 5]
prompt_template = (
    "Produce one JSON object that matches this JSON Schema and records these facts.\n\n"
    "Facts:\n{facts}\n\nSchema:\n```json\n{schema}\n```\n\n"
    "Reply with the object in one ```json block."
)
procedural = True
importable = True
record_fields = ["schema", "facts", "difficulty", "source_id"]
params_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia"]
_CITIES = ["Lisbon", "Oslo", "Lagos", "Lima", "Hanoi", "Quito", "Perth", "Turin", "Cork"]
_TAGS = ["red", "green", "blue", "fast", "quiet", "new", "used", "large", "small"]
_STATUSES = ["draft", "active", "archived"]

Field = tuple[str, dict[str, Any], Callable[[random.Random], Any]]
_SCALARS: list[Field] = [
    ("name", {"type": "string"}, lambda r: r.choice(_NAMES)),
    ("age", {"type": "integer", "minimum": 0}, lambda r: r.randint(18, 90)),
    ("city", {"type": "string"}, lambda r: r.choice(_CITIES)),
    ("active", {"type": "boolean"}, lambda r: r.random() < 0.5),
    ("score", {"type": "integer"}, lambda r: r.randint(0, 1000)),
    ("id", {"type": "integer", "minimum": 1}, lambda r: r.randint(1, 99999)),
    ("email", {"type": "string"}, lambda r: f"{r.choice(_NAMES).lower()}@example.org"),
]
_EXTRAS: dict[str, Field] = {
    "tags": (
        "tags",
        {"type": "array", "items": {"type": "string"}},
        lambda r: r.sample(_TAGS, r.randint(1, 3)),
    ),
    "status": ("status", {"enum": _STATUSES}, lambda r: r.choice(_STATUSES)),
}
_SHAPE = {1: (2, []), 2: (4, []), 3: (4, ["tags"]), 4: (5, ["tags", "address"])}
_SHAPE[5] = (6, ["tags", "status", "address"])
"""Level -> (scalar fields, extra structures)."""


def generate(
    n: int,
    *,
    difficulty: int,
    seed: int,
    params: Mapping[str, Any] | None = None,
    template: str | None = None,
) -> list[Task]:
    common.validate_params(params_schema, params)
    common.check_level(difficulty_levels, difficulty)
    rng = common.seeded_rng(seed, name, difficulty, n)
    return [_generated(rng, difficulty, template) for _ in range(n)]


def _generated(rng: random.Random, difficulty: int, template: str | None) -> Task:
    scalars, extras = _SHAPE[difficulty]
    fields = rng.sample(_SCALARS, scalars) + [_EXTRAS[e] for e in extras if e in _EXTRAS]
    properties = {key: spec for key, spec, _ in fields}
    obj = {key: make(rng) for key, _, make in fields}
    if "address" in extras:
        properties["address"] = _ADDRESS_SCHEMA
        obj["address"] = {"city": rng.choice(_CITIES), "zip": f"{rng.randint(1000, 99999)}"}
    schema = {
        "type": "object",
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }
    return _task(schema, flatten(obj), difficulty, "", template)


_ADDRESS_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
    "required": ["city", "zip"],
    "additionalProperties": False,
}


def _task(
    schema: dict[str, Any],
    facts: dict[str, Any],
    difficulty: int,
    source_id: str,
    template: str | None = None,
) -> Task:
    lines = "\n".join(f"- {path}: {json.dumps(value)}" for path, value in facts.items())
    schema_text = json.dumps(schema, indent=2)
    return Task(
        family=name,
        prompt=common.fill(template or prompt_template, facts=lines, schema=schema_text),
        expected={"schema": schema, "facts": facts},
        difficulty=difficulty,
        source_id=source_id,
    )


def flatten(obj: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects to dotted paths; lists stay whole values (the facts layer compares them)."""
    flat: dict[str, Any] = {}
    for key, value in obj.items():
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def unflatten(facts: Mapping[str, Any]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for path, value in facts.items():
        *parents, leaf = path.split(".")
        node = obj
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return obj


def from_record(
    record: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    template: str | None = None,
) -> Task:
    """A row with a ``schema`` and ``facts`` (objects, or JSON text as CSV gives them)."""
    schema = _json_field(record, "schema")
    problem = safe_schema.schema_problem(schema)  # sized, patterns and refs checked, then meta
    if problem:
        raise RowError("schema", problem)
    facts = _json_field(record, "facts")
    difficulty = common.row_difficulty(record, difficulty_levels, default=1)
    return _task(schema, facts, difficulty, common.optional_text(record, "source_id"), template)


def _json_field(record: Mapping[str, Any], field: str) -> dict[str, Any]:
    value = record.get(field)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise RowError(field, f"is not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise RowError(field, "nests too deeply") from None
    if not isinstance(value, dict) or not value:
        raise RowError(field, "must be a non-empty JSON object")
    return value


def reference_response(task: Task) -> str:
    return f"```json\n{json.dumps(unflatten(task.expected['facts']), indent=2)}\n```"


def extract_answer(response: str) -> Any:
    """The parsed object of the ```json block; None when absent or not JSON."""
    block = common.fenced_block(response, {"json"})
    try:
        return json.loads(block) if block is not None else None
    except json.JSONDecodeError:
        return None


def default_verifier() -> dict[str, Any]:
    return {
        "extract": "json_object",
        "layers": [
            {"kind": "json_parse", "name": "parses"},
            {"kind": "json_schema", "name": "schema"},
            {"kind": "json_facts", "name": "facts"},
        ],
        "reward": {"weights": {"outcome": 0.8, "process": 0.2}},
    }
