"""Every canonical HumanEval solution passes and a mutated version of each fails."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tasks_app.datasets import HUMANEVAL_PATH as DATA
from tasks_app.sandbox import check_function, humaneval

pytestmark = pytest.mark.skipif(not DATA.exists(), reason="HumanEval data not present")


def verdict(problem: dict[str, Any], source: str) -> str:
    result = check_function(
        source, problem["test"], problem["entry_point"], prelude=problem["prompt"], timeout=5.0
    )
    return result.status


def first_failing_mutant(problem: dict[str, Any]) -> str | None:
    for kind, source in humaneval.mutants(problem):
        if verdict(problem, source) != "passed":
            return kind
    return None


@pytest.mark.slow
def test_it_passes_every_canonical_solution_and_fails_a_mutant_of_each() -> None:
    problems = humaneval.load(DATA)
    assert len(problems) == 164
    with ThreadPoolExecutor(2) as pool:
        canonical = list(pool.map(lambda p: verdict(p, humaneval.solution(p)), problems))
        mutants = list(pool.map(first_failing_mutant, problems))
    assert [p["task_id"] for p, v in zip(problems, canonical, strict=True) if v != "passed"] == []
    assert [p["task_id"] for p, m in zip(problems, mutants, strict=True) if m is None] == []


def test_it_counts_the_asserts_of_a_humaneval_check() -> None:
    problem = humaneval.load(DATA)[0]
    good = check_function(
        humaneval.solution(problem),
        problem["test"],
        problem["entry_point"],
        prelude=problem["prompt"],
    )
    assert good.status == "passed" and good.tests_total and good.tests_passed == good.tests_total
    kind, wrong = next(humaneval.mutants(problem))
    bad = check_function(wrong, problem["test"], problem["entry_point"], prelude=problem["prompt"])
    assert bad.status == "failed" and bad.tests_passed is not None
    assert bad.tests_passed < bad.tests_total
