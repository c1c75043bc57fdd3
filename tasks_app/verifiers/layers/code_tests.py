"""Behaviour layers that run code in the sandbox: the unit tests, hidden tests, edge cases.

The verdict comes from the sandbox's status (decided by the parent process), mapped onto the
shared error taxonomy; the score is the fraction of tests passed when the sandbox counts them,
which is the process reward.
"""

from __future__ import annotations

from typing import Any

from tasks_app.sandbox import check_function
from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import (
    SHARE_TESTS,
    Context,
    Expected,
    Layer,
    number,
    params_object,
)

STATUS_ERRORS: dict[str, ErrorType] = {
    "passed": ErrorType.NONE,
    "failed": ErrorType.WRONG_ANSWER,
    "error": ErrorType.RUNTIME_ERROR,
    "timeout": ErrorType.TIMEOUT,
    "memory_limit": ErrorType.MEMORY_LIMIT,
    "output_limit": ErrorType.OUTPUT_LIMIT,
    "forbidden": ErrorType.FORBIDDEN,
}

_SANDBOX_FAILURE = "sandbox failure"  # detail prefix when the sandbox itself failed
_LIMITS: dict[str, Any] = {
    "timeout": number(minimum=0.1, default=5.0, maximum=120, description="seconds of wall time"),
    "memory_mb": {"type": "integer", "minimum": 16, "maximum": 16384, "default": 256},
}


class UnitTests(Layer):
    kind = "unit_tests"
    stage = Stage.SEMANTIC
    description = 'Runs expected["tests"] against expected["entry_point"] in the sandbox.'
    params_schema = params_object(_LIMITS)
    tests_key = "tests"

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        if not expected.get("entry_point"):
            return self.missing("entry_point")
        tests = self._tests(expected)
        if tests is None:
            return self.missing(self.tests_key)
        if not tests.strip():
            return self._nothing_to_run()
        try:
            result = self._check(extracted, tests, expected, context.get(SHARE_TESTS) is True)
        except Exception as exc:  # the sandbox broke, not the response: keep it out of the reward
            return self.fail(ErrorType.SANDBOX_ERROR, f"{type(exc).__name__}: {exc}")
        return self._verdict(result)

    def _tests(self, expected: Expected) -> str | None:
        return expected.get(self.tests_key)

    def _nothing_to_run(self) -> LayerResult:
        return self.fail(ErrorType.VERIFIER_ERROR, f'expected["{self.tests_key}"] is empty')

    def _check(self, solution: str, tests: str, expected: Expected, share: bool) -> Any:
        return check_function(
            solution,
            tests,
            expected["entry_point"],
            prelude=expected.get("prelude") or "",
            timeout=float(self.params.get("timeout", 5.0)),
            memory_mb=int(self.params.get("memory_mb", 256)),
            share_tests=share,
        )

    def _verdict(self, result: Any) -> LayerResult:
        passed, total = result.tests_passed, result.tests_total
        info = {"status": result.status, "tests_passed": passed, "tests_total": total}
        info["sandbox_seconds"] = round(result.seconds, 4)
        error_type = STATUS_ERRORS.get(result.status, ErrorType.SANDBOX_ERROR)
        if result.detail.startswith(_SANDBOX_FAILURE):  # the sandbox broke, not the code
            error_type = ErrorType.SANDBOX_ERROR
        if result.verifier_error:  # the tests broke, not the code
            error_type = ErrorType.VERIFIER_ERROR
        score = passed / total if passed is not None and total else float(result.status == "passed")
        if error_type is ErrorType.NONE:
            return self.ok(1.0, result.detail, **info)
        return self.fail(error_type, result.detail or result.status, score, **info)


class HiddenTests(UnitTests):
    kind = "hidden_tests"
    stage = Stage.BOUNDARY
    description = 'Runs expected["hidden_tests"] (passes with score 1 when the task has none).'
    tests_key = "hidden_tests"

    def _tests(self, expected: Expected) -> str | None:
        return expected.get(self.tests_key) or ""

    def _nothing_to_run(self) -> LayerResult:
        result = self.ok(1.0, "no hidden tests for this task")
        result.skipped = True
        return result


class EdgeCases(UnitTests):
    kind = "edge_cases"
    stage = Stage.BOUNDARY
    description = "Runs check code given in params (def check(candidate): assert ...)."
    params_schema = params_object(
        {"code": {"type": "string", "minLength": 1}, **_LIMITS},
        required=("code",),
    )

    def _tests(self, expected: Expected) -> str | None:
        return self.params["code"]
