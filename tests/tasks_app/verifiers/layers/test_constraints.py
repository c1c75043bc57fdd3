import time

from tasks_app.verifiers.base import ErrorType, Stage

from .helpers import run_layer


def test_it_enforces_character_and_token_limits() -> None:
    assert run_layer("length", "one two three", max_chars=20, max_tokens=3).passed
    too_long = run_layer("length", "one two three four", max_tokens=3)
    assert (too_long.error_type, too_long.stage) == (ErrorType.LENGTH_LIMIT, Stage.CONSTRAINT)
    assert too_long.info["tokens"] == 4
    assert run_layer("length", "hi", min_chars=3).error_type is ErrorType.LENGTH_LIMIT


def test_it_measures_the_extracted_part_when_asked() -> None:
    result = run_layer("length", "short", response="x" * 500, max_chars=10, target="extracted")
    assert result.passed


def test_it_finds_forbidden_imports_through_the_ast() -> None:
    banned = ["os", "subprocess"]
    for code in ("import os.path", "from subprocess import run", "x = __import__('os')"):
        result = run_layer("forbidden", code, imports=banned)
        assert result.error_type is ErrorType.FORBIDDEN, code
    assert run_layer("forbidden", "import osmosis\nimport math", imports=banned).passed
    assert run_layer("forbidden", "s = 'import os'", imports=banned).passed


def test_it_still_sees_imports_in_code_that_does_not_parse() -> None:
    assert not run_layer("forbidden", "import os\ndef f(:\n", imports=["os"]).passed


def test_it_finds_forbidden_patterns() -> None:
    result = run_layer("forbidden", "eval(input())", patterns=[r"\beval\("])
    assert result.error_type is ErrorType.FORBIDDEN
    assert "eval" in result.detail


def test_it_fails_forbidden_patterns_that_run_out_of_time_instead_of_hanging() -> None:
    started = time.process_time()
    result = run_layer("forbidden", "a" * 40 + "b", patterns=["eval", "(a|aa)+$", "(a|aa)+c$"])
    assert time.process_time() - started < 2.0
    assert (result.passed, result.error_type) == (False, ErrorType.TIMEOUT)


def test_it_checks_the_whole_response_for_forbidden_patterns_by_default() -> None:
    reply = "As an AI I cannot do that. Answer: 1149"
    result = run_layer("forbidden", "1149", response=reply, patterns=["(?i)cannot"])
    assert (result.passed, result.error_type) == (False, ErrorType.FORBIDDEN)
    assert result.detail == "forbidden in the response: (?i)cannot"
    assert result.info == {"scope": "response"}


def test_it_checks_only_the_answer_when_scoped_to_it() -> None:
    reply = "As an AI I cannot do that. Answer: 1149"
    kept = run_layer("forbidden", "1149", response=reply, patterns=["(?i)cannot"], scope="answer")
    assert kept.passed and kept.info == {"scope": "answer"}


def test_it_keeps_the_meaning_of_a_stored_spec_that_says_target() -> None:
    reply = "As an AI I cannot do that. Answer: 1149"
    old = run_layer("forbidden", "1149", response=reply, patterns=["cannot"], target="extracted")
    assert old.passed
    whole = run_layer("forbidden", "1149", response=reply, patterns=["cannot"], target="response")
    assert not whole.passed
