from tasks_app.verifiers.base import ErrorType

from .helpers import run_layer


def test_it_passes_code_that_parses_and_defines_the_entry_point() -> None:
    assert run_layer(
        "python_ast", "def add(a, b):\n    return a + b", {"entry_point": "add"}
    ).passed


def test_it_reports_a_syntax_error_with_its_line() -> None:
    result = run_layer("python_ast", "def add(a, b)\n    return a + b")
    assert result.error_type is ErrorType.PARSE_ERROR
    assert "line 1" in result.detail


def test_it_reports_a_missing_entry_point_as_format_error() -> None:
    result = run_layer("python_ast", "def plus(a, b):\n    return a + b", {"entry_point": "add"})
    assert result.error_type is ErrorType.FORMAT_ERROR


def test_it_accepts_an_entry_point_the_prelude_defines() -> None:
    expected = {"entry_point": "add", "prelude": "def add(a, b):\n    return a + b"}
    assert run_layer("python_ast", "x = add(1, 2)", expected).passed
