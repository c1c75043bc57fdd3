"""Regular-expression layers: a format check on the extracted text, and one on the raw response."""

from __future__ import annotations

import re
from typing import Any

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, Params

_PATTERN_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1, "description": "Python regular expression"},
        "fullmatch": {"type": "boolean", "default": False},
        "ignore_case": {"type": "boolean", "default": False},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


def compile_pattern(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE if ignore_case else 0)


def pattern_problem(pattern: Any) -> str | None:
    """Why ``pattern`` is not a usable regular expression, or None when it is."""
    try:
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        return f"is not a valid regular expression ({exc})"
    return None


class Regex(Layer):
    kind = "regex"
    stage = Stage.SYNTAX
    description = "The extracted text matches a regular expression (search, or fullmatch)."
    params_schema = _PATTERN_PARAMS
    target = "extracted"

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        problem = pattern_problem(params.get("pattern"))
        return [("pattern", problem)] if problem else []

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        text = extracted if self.target == "extracted" else response
        regex = compile_pattern(self.params["pattern"], self.params.get("ignore_case", False))
        matcher = regex.fullmatch if self.params.get("fullmatch", False) else regex.search
        if matcher(text.strip() if self.params.get("fullmatch") else text):
            return self.ok()
        return self.fail(ErrorType.FORMAT_ERROR, f"{self.target} does not match {regex.pattern!r}")


class RequiredFormat(Regex):
    kind = "required_format"
    stage = Stage.CONSTRAINT
    description = "The raw response matches a regular expression (e.g. must end with 'Answer:')."
    target = "response"
