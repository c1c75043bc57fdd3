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
