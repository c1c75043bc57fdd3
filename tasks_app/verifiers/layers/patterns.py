"""Regular-expression layers: a format check on the extracted text, and one on the raw response.

Patterns come from users, so they compile and match through :mod:`tasks_app.verifiers.safe_regex`
(measured first, then matched with a time limit); a match that runs out of time fails the layer.
"""

from __future__ import annotations

from typing import Any

from tasks_app.verifiers import safe_regex
from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, Params

_PATTERN_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "minLength": 1,
            "maxLength": safe_regex.PATTERN_LIMIT_CHARS,
            "description": "Python regular expression",
        },
        "fullmatch": {"type": "boolean", "default": False},
        "ignore_case": {"type": "boolean", "default": False},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


class Regex(Layer):
    kind = "regex"
    stage = Stage.SYNTAX
    description = "The extracted text matches a regular expression (search, or fullmatch)."
    params_schema = _PATTERN_PARAMS
    target = "extracted"

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        problem = safe_regex.pattern_problem(params.get("pattern"))
        return [("pattern", problem)] if problem else []

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        text = extracted if self.target == "extracted" else response
        pattern, fullmatch = self.params["pattern"], bool(self.params.get("fullmatch", False))
        try:
            found = safe_regex.search(
                pattern,
                text.strip() if fullmatch else text,
                ignore_case=self.params.get("ignore_case", False),
                fullmatch=fullmatch,
            )
        except safe_regex.TimeLimit as exc:
            return self.fail(ErrorType.TIMEOUT, str(exc))
        if found:
            return self.ok()
        return self.fail(ErrorType.FORMAT_ERROR, f"{self.target} does not match {pattern!r}")


class RequiredFormat(Regex):
    kind = "required_format"
    stage = Stage.CONSTRAINT
    description = "The raw response matches a regular expression (e.g. must end with 'Answer:')."
    target = "response"
