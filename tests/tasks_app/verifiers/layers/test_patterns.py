import time

from tasks_app.verifiers.base import ErrorType, Stage

from .helpers import run_layer


def test_it_passes_a_regex_search_and_fails_a_miss() -> None:
    assert run_layer("regex", "The answer is 42", pattern=r"\d+").passed
    result = run_layer("regex", "no digits", pattern=r"\d+")
    assert (result.passed, result.error_type, result.stage) == (
        False,
        ErrorType.FORMAT_ERROR,
        Stage.SYNTAX,
    )


def test_it_requires_the_whole_text_with_fullmatch() -> None:
    assert run_layer("regex", " 42 ", pattern=r"\d+", fullmatch=True).passed
    assert not run_layer("regex", "x 42", pattern=r"\d+", fullmatch=True).passed
    assert run_layer("regex", "YES", pattern="yes", ignore_case=True).passed


def test_it_checks_the_raw_response_for_required_format() -> None:
    ok = run_layer(
        "required_format", "7", response="Reasoning...\nAnswer: 7", pattern=r"Answer: \S+$"
    )
    bad = run_layer("required_format", "7", response="it is 7", pattern=r"Answer: \S+$")
    assert ok.passed and ok.stage is Stage.CONSTRAINT
    assert bad.error_type is ErrorType.FORMAT_ERROR


SLOW = "(a|aa)+$"  # backtracks through every way of splitting the a's
NO_MATCH = "a" * 40 + "b"


def test_it_fails_a_pattern_that_runs_out_of_time_instead_of_hanging() -> None:
    for kind in ("regex", "required_format"):
        started = time.process_time()
        result = run_layer(kind, NO_MATCH, pattern=SLOW)
        assert time.process_time() - started < 2.0, kind
        assert (result.passed, result.error_type) == (False, ErrorType.TIMEOUT), kind
        assert "took too long" in result.detail


def test_it_answers_at_once_for_the_nested_plus_that_stalled_the_server() -> None:
    started = time.process_time()
    result = run_layer("regex", NO_MATCH, pattern="(a+)+$")
    assert time.process_time() - started < 2.0
    assert result.error_type is ErrorType.FORMAT_ERROR
