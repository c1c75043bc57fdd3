from __future__ import annotations

import pytest

from tasks_app.sandbox import counting

TESTS = """
def check(candidate):
    assert candidate(1) == 2
    assert candidate(2) == 99, "second"
    for x in range(3):
        assert candidate(x) == x + 1
    assert candidate(3) == 4
"""


def test_it_counts_each_top_level_assert_and_keeps_going() -> None:
    tally = counting.Tally()
    namespace: dict[str, object] = {counting.TALLY_NAME: tally}
    exec(counting.compile_tests(TESTS, tally), namespace)
    namespace["check"](lambda x: x + 1)  # type: ignore[operator]
    assert (tally.total, tally.passes) == (3, 2)
    assert tally.failures == ["line 4: AssertionError: second"]


def test_it_lets_statements_other_than_asserts_raise() -> None:
    tally = counting.Tally()
    namespace: dict[str, object] = {counting.TALLY_NAME: tally}
    exec(counting.compile_tests(TESTS, tally), namespace)
    with pytest.raises(AssertionError):
        namespace["check"](lambda x: 2 if x == 1 else 0)  # type: ignore[operator]
