import time

import pytest

from tasks_app.verifiers import safe_regex

CATASTROPHIC = "(a|aa)+$"  # backtracks through every way of splitting the a's
NO_MATCH = "a" * 40 + "b"


def test_it_matches_like_re_with_search_fullmatch_and_case() -> None:
    assert safe_regex.search(r"\d+", "answer 42")
    assert not safe_regex.search(r"\d+", "answer 42", fullmatch=True)
    assert safe_regex.search("yes", "YES", ignore_case=True)


def test_it_stops_a_catastrophic_pattern_at_its_time_limit() -> None:
    started = time.process_time()
    with pytest.raises(safe_regex.TimeLimit, match="took too long"):
        safe_regex.search(CATASTROPHIC, NO_MATCH)
    assert time.process_time() - started < 2 * safe_regex.MATCH_TIMEOUT_S + 0.5


def test_it_no_longer_stalls_on_the_nested_plus_that_re_cannot_finish() -> None:
    started = time.process_time()
    assert not safe_regex.search("(a+)+$", NO_MATCH)
    assert time.process_time() - started < 1.0


def test_it_shares_one_deadline_between_the_matches_of_a_check() -> None:
    started = time.process_time()
    with pytest.raises(safe_regex.TimeLimit), safe_regex.time_limit(0.4):
        for _ in range(10):
            try:
                safe_regex.search(CATASTROPHIC, NO_MATCH)
            except safe_regex.TimeLimit:
                pass  # one pattern out of time; the next ones share what is left
            safe_regex.check_time()
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize(
    ("pattern", "reason_part"),
    [
        ("(", "not a valid regular expression"),
        ("a" * (safe_regex.PATTERN_LIMIT_CHARS + 1), "longer than"),
        ("(?:(?:a{1000}){1000}){10}", "repeats too much"),
        ("(?:a{65535}){65535}", "repeats too much"),
        ("(" * 400 + ")" * 400, "too deeply"),
        (42, "must be a string"),
    ],
)
def test_it_refuses_patterns_it_cannot_compile_quickly(pattern: object, reason_part: str) -> None:
    started = time.process_time()
    problem = safe_regex.pattern_problem(pattern)
    assert problem is not None and reason_part in problem
    assert time.process_time() - started < 1.0


def test_it_accepts_ordinary_counted_repeats() -> None:
    assert safe_regex.pattern_problem(r"[a-z]{1,64}@[a-z]{1,255}\.[a-z]{2,63}") is None
    with pytest.raises(ValueError, match="repeats too much"):
        safe_regex.compiled("(?:a{1000}){1000}")
