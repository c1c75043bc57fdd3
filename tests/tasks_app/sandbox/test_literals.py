"""Literal-assert tests decided by the keeper: what is read, and that deciding from a reading
gives exactly what running the tests in their unit gives, for any candidate."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from tasks_app.sandbox import check_function, keeper, literals, wire

EVERY_FORM = (
    "METADATA = {'author': 'x'}\n"
    "import math\n"
    "from typing import List as L\n"
    "def helper(x: int = 3) -> L[int]:\n"
    "    return [abs(x)]\n"
    "def check(candidate):\n"
    '    """doc"""\n'
    "    assert True, 'a note'\n"
    "    assert candidate(1) == 2\n"
    "    assert candidate(2) != 'x', 'a message'\n"
    "    assert [3] == candidate(3)\n"
    "    assert (4,) != candidate(x=4)\n"
    "    assert candidate(5) is None\n"
    "    assert candidate(6) is not False\n"
    "    assert candidate(7)\n"
    "    assert not candidate(8)\n"
    "    assert abs(candidate(9) - 2.0 / 3.0) < 1e-6\n"
    "    assert abs(candidate(10) - 1) <= 0.5, 'near' + ' one'\n"
    "    pass\n"
)
PRELUDE = "from typing import List\n\n\ndef f(x):\n    '''A function.'''\n"


def reading(tests: str, prelude: str = "") -> dict[str, Any] | None:
    return literals.read(ast.parse(tests), prelude)


def test_every_form_is_read_with_its_call_operands_and_message() -> None:
    data = reading(EVERY_FORM, PRELUDE)
    assert data is not None
    read = literals.parse(data)
    expected_args = [() if n == 4 else (n,) for n in range(1, 11)]
    assert [wire.decode(c["args"]) for c in read.calls] == expected_args
    assert wire.decode(read.calls[3]["kwargs"]) == {"x": 4}
    forms = [(a.form, a.call, a.operands, a.message) for a in read.asserts]
    assert forms == [
        ("const", None, (True,), ("a note",)),
        ("eq", 0, (2,), ()),
        ("ne", 1, ("x",), ("a message",)),
        ("req", 2, ([3],), ()),
        ("rne", 3, ((4,),), ()),
        ("is", 4, (None,), ()),
        ("is_not", 5, (False,), ()),
        ("truthy", 6, (), ()),
        ("falsy", 7, (), ()),
        ("abs_lt", 8, (2.0 / 3.0, 1e-6), ()),
        ("abs_le", 9, (1, 0.5), ("near one",)),
    ]
    assert [a.line for a in read.asserts] == list(range(8, 19))


@pytest.mark.parametrize(
    "tests",
    [
        "def check(candidate):\n    assert candidate(x) == 1\n",  # not a literal
        "def check(candidate):\n    assert candidate(1) == helper(1)\n",
        "def check(candidate):\n    assert candidate(2 ** 1000) == 1\n",  # not folded
        "def check(candidate):\n    assert candidate(1) == 2, str(candidate(1))\n",
        "def check(candidate):\n    assert candidate(1) < 2\n",
        "def check(candidate):\n    assert candidate(1) is 1\n",
        "def check(candidate):\n    assert candidate(*[1]) == 1\n",
        "def check(candidate):\n    assert tuple(candidate(1)) == (1,)\n",
        "def check(candidate):\n    for x in (1,):\n        assert candidate(x) == x\n",
        "def check(candidate):\n    print()\n    assert candidate(1) == 1\n",
        "def check(candidate):\n    import math\n    assert candidate(1) == 1\n",
        "def check(candidate):\n    assert True\n",  # never calls the candidate
        "def check(candidate, other):\n    assert candidate(1) == 1\n",
        "@staticmethod\ndef check(candidate):\n    assert candidate(1) == 1\n",
        "def check(candidate):\n    assert candidate(1) == 1\ndef check(candidate):\n    pass\n",
        "def check(candidate):\n    assert candidate(1) == 1\ncheck = print\n",
        "print('loaded')\ndef check(candidate):\n    assert candidate(1) == 1\n",
        "abs = round\ndef check(candidate):\n    assert abs(candidate(1) - 1) < 1\n",
        "from math import *\ndef check(candidate):\n    assert candidate(1) == 1\n",
        "from builtins import KeyError as Exception\ndef check(candidate):\n    assert candidate(1)\n",
        "def f(x=print()):\n    pass\ndef check(candidate):\n    assert candidate(1) == 1\n",
        "x: int = 1\ndef check(candidate):\n    assert candidate(1) == 1\n",
        "def check(candidate):\n    assert candidate(b'x') == 1\n",  # bytes do not cross
    ],
)
def test_tests_that_could_do_anything_else_are_not_read(tests: str) -> None:
    assert reading(tests) is None


@pytest.mark.parametrize(
    "prelude",
    ["def abs(x):\n    return x\n", "def check(candidate):\n    pass\n", "setup()\n"],
)
def test_a_prelude_that_could_change_the_check_stops_the_reading(prelude: str) -> None:
    assert reading("def check(candidate):\n    assert candidate(1) == 1\n", prelude) is None


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"calls": [], "asserts": []},
        {"calls": [{"args": ["t", []], "kwargs": ["d", []]}], "asserts": []},  # unjudged call
        {
            "calls": [{"args": ["t", []], "kwargs": ["d", []]}],
            "asserts": [[1, "eq", 0, [1], []], [2, "eq", 0, [1], []]],  # judged twice
        },
        {
            "calls": [{"args": ["t", []], "kwargs": ["d", []]}],
            "asserts": [[1, "is", 0, [1], []]],  # ``is`` with an int
        },
        {
            "calls": [{"args": ["t", []], "kwargs": ["d", []]}],
            "asserts": [[1, "exec", 0, ["import os"], []]],
        },
        {"calls": [{"args": ["x", []], "kwargs": ["d", []]}], "asserts": [[1, "eq", 0, [1], []]]},
        {"calls": [{"args": ["l", []], "kwargs": ["d", []]}], "asserts": [[1, "eq", 0, [1], []]]},
    ],
)
def test_the_keeper_refuses_a_reading_of_the_wrong_shape(data: Any) -> None:
    with pytest.raises(ValueError):
        literals.parse(data)


def value(v: Any) -> dict[str, Any]:
    return {"value": wire.encode(v)}


def test_deciding_counts_every_assert_and_reports_the_first_failure() -> None:
    data = reading(EVERY_FORM)
    assert data is not None
    read = literals.parse(data)
    right = [value(v) for v in (2, 0, [3], [4], None, True, 1, 0, 0.6666666, 1.4)]
    assert literals.decide(read, right) == {
        "passes": 11,
        "total": 11,
        "failure": None,
        "raised": None,
        "broken": None,
    }
    wrong = [{"raised": ["ZeroDivisionError", "division by zero"]}, *right[1:]]
    wrong[1] = value("x")
    wrong[8] = value("0.5")  # str - float raises inside the counted assert
    decided = literals.decide(read, wrong)
    assert decided["passes"] == 8
    assert decided["failure"] == (
        "line 9: ZeroDivisionError: candidate raised ZeroDivisionError: division by zero"
    )
    # The candidate's execution ended after four replies: the asserts stop there.
    cut = literals.decide(read, right[:4])
    assert (cut["passes"], cut["total"], cut["failure"]) == (5, 11, None)


def test_a_reading_is_used_only_once_a_real_run_of_the_tests_agrees_with_it() -> None:
    readings = keeper.Readings()
    tests = "def check(candidate):\n    assert candidate(1) == 2\n"
    text = (tests, "")
    data = reading(tests)
    readings.offer(text, data)
    key = ("inc", 256)
    assert readings.confirmed(text, key) is None
    unit_said = {"passes": 0, "total": 1, "failure": "line 2: AssertionError"}
    unit_said |= {"raised": None, "broken": None}
    readings.confirm(text, key, [value(2)], unit_said)  # the reading says it passes
    assert readings.confirmed(text, key) is None
    readings.confirm(text, key, [value(3)], unit_said)
    assert readings.confirmed(text, key) is not None
    assert readings.confirmed(text, ("inc", 64)) is None  # another memory limit: not yet


# Candidates for the same tests, each one a different way of passing, failing or breaking.
LITERAL_TESTS = (
    "def check(candidate):\n"
    "    assert candidate(1) == 2, 'one'\n"
    "    assert [2] != candidate(2)\n"
    "    assert candidate(3) is None\n"
    "    assert not candidate(4)\n"
    "    assert abs(candidate(5) - 2.0 / 3.0) < 1e-9\n"
    "    assert candidate(6)\n"
)
CANDIDATES = {
    "right": ("def f(x):\n    return {1: 2, 2: (2,), 3: None, 4: [], 5: 2 / 3, 6: 'y'}[x]\n"),
    "wrong types": ("def f(x):\n    return {1: 2.0, 2: [2], 3: 0, 4: 'no', 5: '2/3', 6: {}}[x]\n"),
    "raises": (
        "class Odd(Exception):\n    pass\n"
        "def f(x):\n"
        "    if x == 1:\n        raise ValueError('bad ' * 400)\n"
        "    if x == 2:\n        raise Odd('custom')\n"
        "    if x == 3:\n        raise UnicodeDecodeError('utf-8', b'x', 0, 1, 'no')\n"
        "    if x == 5:\n        return float('nan')\n"
        "    return x\n"
    ),
    "times out midway": "def f(x):\n    while x == 4:\n        pass\n    return None\n",
    "exits midway": "import os\ndef f(x):\n    if x == 3:\n        os._exit(3)\n    return 2\n",
    "runs out of memory": ("def f(x):\n    return bytearray(10 ** 9) if x == 2 else 2\n"),
    "returns what cannot cross": "def f(x):\n    return object() if x == 5 else 2\n",
    "does not load": "def f(x):\n    return (\n",
}


@pytest.mark.parametrize("name", list(CANDIDATES))
def test_deciding_from_the_reading_gives_what_running_the_tests_gives(name: str) -> None:
    tests = LITERAL_TESTS + f"# {name}\n"  # a text of its own: the first check runs it
    first = check_function(CANDIDATES["right"], tests, "f", timeout=1.5)
    assert (first.status, first.read) == ("passed", False)
    ran = check_function(CANDIDATES[name], tests + "#\n", "f", timeout=1.5)
    read = check_function(CANDIDATES[name], tests, "f", timeout=1.5)
    assert (ran.read, read.read) == (False, True)
    fields = ("status", "detail", "tests_passed", "tests_total", "verifier_error")
    assert [getattr(read, f) for f in fields] == [getattr(ran, f) for f in fields]
    if name != "right":
        assert read.status != "passed"
