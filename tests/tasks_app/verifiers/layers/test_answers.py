import pytest

from tasks_app.verifiers.base import ErrorType

from .helpers import run_layer


@pytest.mark.parametrize(
    ("got", "answer"),
    [("1,234", "1234"), ("$5", 5), ("3/4", "0.75"), ("-2.50", "-2.5"), ("The answer is 18.", "18")],
)
def test_it_matches_numbers_written_differently(got: str, answer: object) -> None:
    assert run_layer("numeric_match", got, {"answer": answer}).passed


def test_it_rejects_a_wrong_number_and_a_missing_one() -> None:
    assert run_layer("numeric_match", "19", {"answer": "18"}).error_type is ErrorType.WRONG_ANSWER
    assert (
        run_layer("numeric_match", "eighteen", {"answer": "18"}).error_type
        is ErrorType.FORMAT_ERROR
    )
    assert run_layer("numeric_match", "18", {}).error_type is ErrorType.VERIFIER_ERROR


def test_it_applies_the_tolerances() -> None:
    assert run_layer("numeric_match", "3.14", {"answer": "3.14159"}, abs_tol=0.01).passed
    assert not run_layer("numeric_match", "3.14", {"answer": "3.14159"}).passed
    assert run_layer("numeric_match", "1010", {"answer": 1000}, rel_tol=0.02).passed


def test_it_matches_strings_after_normalising() -> None:
    assert run_layer("string_match", "  Hello   World ", {"answer": "hello world"}).passed
    assert run_layer("string_match", '"olleh"', {"answer": "olleh"}).passed
    assert run_layer(
        "string_match", "hello, world!", {"answer": "hello world"}, keep_punctuation=False
    ).passed
    assert run_layer("string_match", "x", {"answer": ["y", "X"]}).passed


def test_it_respects_case_when_asked() -> None:
    result = run_layer("string_match", "olleh", {"answer": "olleH"}, case_sensitive=True)
    assert result.error_type is ErrorType.WRONG_ANSWER
