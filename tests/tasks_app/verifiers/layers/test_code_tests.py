"""The sandboxed test layers, run on real HumanEval items through the real sandbox."""

import gzip
import json

import pytest

from tasks_app.datasets import HUMANEVAL_PATH as HUMANEVAL
from tasks_app.verifiers.base import ErrorType, Stage

from .helpers import run_layer


@pytest.fixture(scope="module")
def item() -> dict:
    with gzip.open(HUMANEVAL, "rt") as lines:
        first = json.loads(next(lines))
    return first  # HumanEval/0: has_close_elements


def _expected(item: dict, **extra: str) -> dict:
    return {"tests": item["test"], "entry_point": item["entry_point"], **extra}


def test_it_passes_the_canonical_solution(item: dict) -> None:
    result = run_layer("unit_tests", item["prompt"] + item["canonical_solution"], _expected(item))
    assert result.passed, result.detail
    assert result.stage is Stage.SEMANTIC and result.score == 1.0


def test_it_fails_a_wrong_body_as_wrong_answer(item: dict) -> None:
    result = run_layer("unit_tests", item["prompt"] + "    return False\n", _expected(item))
    assert result.error_type is ErrorType.WRONG_ANSWER
    assert 0 <= result.score < 1


def test_it_maps_a_crash_and_a_hang(item: dict) -> None:
    crash = run_layer("unit_tests", item["prompt"] + "    raise KeyError(1)\n", _expected(item))
    hang = run_layer(
        "unit_tests", item["prompt"] + "    while True: pass\n", _expected(item), timeout=1
    )
    assert crash.error_type in (ErrorType.RUNTIME_ERROR, ErrorType.WRONG_ANSWER)
    assert hang.error_type is ErrorType.TIMEOUT


def test_it_runs_hidden_tests_or_passes_without_them(item: dict) -> None:
    solution = item["prompt"] + item["canonical_solution"]
    hidden = "def check(candidate):\n    assert candidate([1.0, 1.05], 0.1) is True\n"
    assert run_layer("hidden_tests", solution, _expected(item, hidden_tests=hidden)).passed
    none = run_layer("hidden_tests", solution, _expected(item))
    assert (none.passed, none.skipped, none.score, none.stage) == (True, True, 1.0, Stage.BOUNDARY)


def test_it_runs_edge_cases_from_params(item: dict) -> None:
    solution = item["prompt"] + item["canonical_solution"]
    edge = "def check(candidate):\n    assert candidate([], 1.0) is False\n"
    wrong = "def check(candidate):\n    assert candidate([], 1.0) is True\n"
    assert run_layer("edge_cases", solution, _expected(item), code=edge).passed
    assert not run_layer("edge_cases", solution, _expected(item), code=wrong).passed
