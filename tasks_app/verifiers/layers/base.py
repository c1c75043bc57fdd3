"""The shape every layer kind shares.

A layer kind is a small class: a ``stage``, a JSON Schema for its ``params`` (which the
builder renders and :mod:`tasks_app.verifiers.spec` validates), an optional extra
``check_params`` for what a schema cannot say, and ``run`` returning a :class:`LayerResult`.
Copy an existing kind to add one, then name it in ``LAYER_KINDS``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage

Params = dict[str, Any]
Expected = dict[str, Any]
Context = dict[str, Any]
# Context key set by callers that judge many samples of one task in a row (a training or
# evaluation batch): code layers may then share one loaded tests' unit between them.
SHARE_TESTS = "share_tests"


class Layer:
    kind: ClassVar[str]
    stage: ClassVar[Stage]
    description: ClassVar[str]
    params_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    biased: ClassVar[bool] = False

    def __init__(self, name: str, params: Params) -> None:
        self.name = name
        self.params = self.upgrade_params(params)

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        """(param name, reason) pairs for problems the params schema cannot express."""
        return []

    @classmethod
    def upgrade_params(cls, params: Params) -> Params:
        """``params`` with any renamed param under its current name, meaning unchanged.

        Stored versions are never rewritten, so a kind that renames a param keeps accepting
        the old name (marked ``deprecated`` in its schema) and canonical() writes the new one.
        """
        return params

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        raise NotImplementedError

    def ok(self, score: float = 1.0, detail: str = "", **info: Any) -> LayerResult:
        return self._result(True, score, ErrorType.NONE, detail, info)

    def fail(
        self, error_type: ErrorType, detail: str, score: float = 0.0, **info: Any
    ) -> LayerResult:
        return self._result(False, score, error_type, detail, info)

    def missing(self, key: str) -> LayerResult:
        """The task lacks an ``expected`` key this layer needs: the verifier's fault, not the response's."""
        return self.fail(ErrorType.VERIFIER_ERROR, f'expected["{key}"] is missing')

    def _result(
        self, passed: bool, score: float, error_type: ErrorType, detail: str, info: dict[str, Any]
    ) -> LayerResult:
        return LayerResult(
            name=self.name,
            kind=self.kind,
            stage=self.stage,
            passed=passed,
            score=min(1.0, max(0.0, float(score))),
            error_type=error_type,
            detail=detail[:2000],  # sandbox output can be long; reports need the gist
            biased=self.biased,
            info=info,
        )


def number(minimum: float = 0, default: float | None = None, **extra: Any) -> dict[str, Any]:
    """A params-schema entry for a non-negative (or bounded) number."""
    schema: dict[str, Any] = {"type": "number", "minimum": minimum, **extra}
    if default is not None:
        schema["default"] = default
    return schema


def string_list(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def flag(default: bool, description: str = "") -> dict[str, Any]:
    """A params-schema entry for a boolean switch."""
    schema: dict[str, Any] = {"type": "boolean", "default": default}
    return {**schema, "description": description} if description else schema


def params_object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A closed params schema: unknown parameters are errors, so typos do not pass silently."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    schema["additionalProperties"] = False
    return {**schema, "required": list(required)} if required else schema
