"""JSON layers: it parses, it matches a JSON Schema, its fields hold the expected facts."""

from __future__ import annotations

import json
from typing import Any

from tasks_app.verifiers import safe_regex, safe_schema
from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, Params, flag, params_object

_MISSING = object()


def parse_json(text: str) -> tuple[Any, str | None]:
    """(value, None) when ``text`` is JSON, else (None, the parser's reason)."""
    try:
        return json.loads(text), None
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"not valid JSON: {exc}"


class JsonParse(Layer):
    kind = "json_parse"
    stage = Stage.SYNTAX
    description = "The extracted text parses as JSON (optionally: must be an object)."
    params_schema = params_object({"require_object": flag(True)})

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        value, problem = parse_json(extracted)
        if problem:
            return self.fail(ErrorType.PARSE_ERROR, problem)
        if self.params.get("require_object", True) and not isinstance(value, dict):
            return self.fail(
                ErrorType.FORMAT_ERROR, f"a JSON object is required, got {type(value).__name__}"
            )
        return self.ok()


class JsonSchema(Layer):
    kind = "json_schema"
    stage = Stage.SYNTAX
    description = 'The JSON matches a JSON Schema (params "schema", else expected["schema"]).'
    params_schema = params_object(
        {"schema": {"type": "object", "description": "overrides expected.schema"}}
    )

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        if "schema" not in params:
            return []
        problem = safe_schema.schema_problem(params["schema"])
        return [("schema", problem)] if problem else []

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        schema = self.params.get("schema", expected.get("schema"))
        if schema is None:
            return self.missing("schema")
        problem = safe_schema.schema_problem(schema)  # a task's schema is a user's too
        if problem:
            return self.fail(ErrorType.VERIFIER_ERROR, f"schema {problem}")
        value, problem = parse_json(extracted)
        if problem:
            return self.fail(ErrorType.PARSE_ERROR, problem)
        try:
            errors = safe_schema.validation_errors(schema, value)
        except safe_regex.TimeLimit as exc:
            return self.fail(ErrorType.TIMEOUT, f"checking against the schema: {exc}")
        if not errors:
            return self.ok()
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        return self.fail(ErrorType.SCHEMA_ERROR, f"{where}: {first.message}", errors=len(errors))


def lookup(value: Any, path: str) -> Any:
    """``value`` at a dotted path ("address.city", "items.0.name"); _MISSING when absent."""
    if isinstance(value, dict) and path in value:  # a key that itself contains a dot
        return value[path]
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def same_value(got: Any, want: Any) -> bool:
    """JSON equality where 3 == 3.0 but True != 1 (json.loads keeps them apart too)."""
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want) and got == want
    return got == want


class JsonFacts(Layer):
    kind = "json_facts"
    stage = Stage.SEMANTIC
    description = (
        'Each field (dotted path) of the JSON equals expected["facts"]; score = share right.'
    )
    params_schema = params_object({})

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        facts = expected.get("facts")
        if not isinstance(facts, dict):
            return self.missing("facts")
        value, problem = parse_json(extracted)
        if problem:
            return self.fail(ErrorType.PARSE_ERROR, problem)
        wrong = [key for key, want in facts.items() if not same_value(lookup(value, key), want)]
        score = 1 - len(wrong) / len(facts) if facts else 1.0
        if not wrong:
            return self.ok(score, facts_right=len(facts), facts_total=len(facts))
        detail = "wrong or missing: " + ", ".join(wrong[:10])
        return self.fail(
            ErrorType.WRONG_ANSWER,
            detail,
            score,
            facts_right=len(facts) - len(wrong),
            facts_total=len(facts),
        )
