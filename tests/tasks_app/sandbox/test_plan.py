"""Call plans: which candidate calls are certain before the tests run, and that batching
them changes no verdict, count or order."""

from __future__ import annotations

import ast

import pytest

from tasks_app.sandbox import check_function, plan


def plan_of(tests: str) -> list[tuple[tuple[object, ...], dict[str, object]]]:
    tree = ast.parse(tests)
    check = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    return plan.of_check(check).calls


def test_it_plans_the_leading_literal_asserts_and_stops_at_the_first_other_statement() -> None:
    tests = (
        "def check(candidate):\n"
        '    """doc"""\n'
        "    assert True, 'a note'\n"
        "    assert candidate([1, 2], k=-3) == 3\n"
        "    assert abs(candidate(0.5) - 1.0) < 1e-6, 'close'\n"
        "    assert not candidate('x')\n"
        "    assert 4 == candidate((1, {2: 'b'}))\n"
        "    x = 1\n"
        "    assert candidate(9) == 9\n"
    )
    assert plan_of(tests) == [
        (([1, 2],), {"k": -3}),
        ((0.5,), {}),
        (("x",), {}),
        (((1, {2: "b"}),), {}),
    ]


@pytest.mark.parametrize(
    "assertion",
    [
        "assert candidate(1) == 2 or candidate(2) == 3",  # the second call may be skipped
        "assert helper() == candidate(1)",  # helper runs first and may raise
        "assert candidate(x) == 1",  # not a literal
        "assert 1 < 2 < candidate(3)",  # the call sits behind a short circuit
        "assert candidate(1) == 2, candidate(2)",  # the message calls it on failure only
        "assert candidate(1) == helper(2)",  # helper may call the candidate by name
        "assert candidate(*[1])",
    ],
)
def test_it_plans_nothing_it_cannot_be_sure_of(assertion: str) -> None:
    assert plan_of(f"def check(candidate):\n    {assertion}\n    assert candidate(5)\n") == []


COUNTER = "calls = []\ndef nxt(x):\n    calls.append(x)\n    return len(calls) * 10 + x\n"


def test_a_stateful_candidate_sees_the_calls_in_the_tests_order() -> None:
    tests = (
        "def check(candidate):\n"
        "    assert candidate(1) == 11\n"
        "    assert candidate(1) == 99\n"  # fails: 21; the next assert still runs
        "    assert candidate(3) == 33\n"
        "    for x in range(2):\n"
        "        assert candidate(x) == 40 + x + 10 * x\n"
    )
    result = check_function(COUNTER, tests, "nxt")
    assert (result.status, result.tests_passed, result.tests_total) == ("failed", 2, 3)
    assert result.detail == "line 3: AssertionError"


def test_a_rebound_builtin_turns_the_plan_off() -> None:
    tests = (
        "seen = []\n"
        "def abs(value):\n"
        "    seen.append(nxt(100))  # the entry point's name is the candidate too\n"
        "    return value\n"
        "def check(candidate):\n"
        "    assert abs(candidate(1)) == 11\n"
        "    assert candidate(2) == 32\n"
        "    assert seen == [120]\n"
    )
    assert check_function(COUNTER, tests, "nxt").status == "passed"


def test_a_planned_call_that_runs_forever_is_a_timeout_with_the_asserts_before_it() -> None:
    solution = "def f(x):\n    while x == 2:\n        pass\n    return x\n"
    tests = (
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
        "    assert candidate(2) == 2\n"
        "    assert candidate(3) == 3\n"
    )
    result = check_function(solution, tests, "f", timeout=1.0)
    assert (result.status, result.tests_passed, result.tests_total) == ("timeout", 1, 3)


def test_a_planned_call_out_of_memory_ends_the_run() -> None:
    solution = "def f(x):\n    return len(bytearray(10 ** 10)) if x == 2 else x\n"
    tests = "def check(candidate):\n" + "".join(
        f"    assert candidate({x}) == {x}\n" for x in (1, 2, 3)
    )
    assert check_function(solution, tests, "f", memory_mb=64).status == "memory_limit"
