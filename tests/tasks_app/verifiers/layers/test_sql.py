import time
from pathlib import Path

from tasks_app.verifiers.base import ErrorType

from .helpers import run_layer

SCHEMA_SQL = """
CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, age INTEGER);
INSERT INTO people (name, age) VALUES ('Ada', 36), ('Alan', 41), ('Grace', 85), ('Alan', 12);
"""
TASK = {"schema_sql": SCHEMA_SQL, "reference_sql": "SELECT name FROM people WHERE age > 30"}


def test_it_parses_one_select_against_the_schema() -> None:
    assert run_layer("sql_parse", "SELECT name FROM people;", TASK).passed
    assert (
        run_layer("sql_parse", "SELEC name FROM people", TASK).error_type is ErrorType.PARSE_ERROR
    )


def test_it_treats_several_statements_as_a_parse_error() -> None:
    result = run_layer("sql_parse", "SELECT 1; SELECT 2", TASK)
    assert result.error_type is ErrorType.PARSE_ERROR


def test_it_forbids_writes_attach_and_pragmas() -> None:
    for statement in (
        "DELETE FROM people",
        "INSERT INTO people (name) VALUES ('x')",
        "ATTACH DATABASE 'other.db' AS other",
        "PRAGMA writable_schema = 1",
    ):
        assert run_layer("sql_parse", statement, TASK).error_type is ErrorType.FORBIDDEN, statement


def test_it_checks_syntax_only_without_a_schema() -> None:
    assert run_layer("sql_parse", "SELECT x FROM unknown_table", {}).passed


def test_it_compares_rows_as_multisets_by_default() -> None:
    candidate = "SELECT name FROM people WHERE age >= 36 ORDER BY name DESC"
    result = run_layer("sql_result", candidate, TASK)
    assert result.passed and result.info["rows"] == 3


def test_it_rejects_wrong_rows_with_partial_credit() -> None:
    result = run_layer("sql_result", "SELECT name FROM people WHERE age > 40", TASK)
    assert result.error_type is ErrorType.WRONG_ANSWER
    assert 0 < result.score < 1


def test_it_counts_duplicates() -> None:
    task = {**TASK, "reference_sql": "SELECT name FROM people"}  # Alan twice
    result = run_layer("sql_result", "SELECT DISTINCT name FROM people", task)
    assert not result.passed


def test_it_checks_order_when_the_question_orders() -> None:
    task = {**TASK, "reference_sql": "SELECT name FROM people ORDER BY age", "ordered": True}
    assert run_layer("sql_result", "SELECT name FROM people ORDER BY age ASC", task).passed
    result = run_layer("sql_result", "SELECT name FROM people ORDER BY age DESC", task)
    assert result.error_type is ErrorType.WRONG_ANSWER
    assert "order" in result.detail


def test_it_uses_expected_rows_when_given() -> None:
    task = {"schema_sql": SCHEMA_SQL, "expected_rows": [[3, 36.0]]}
    assert run_layer(
        "sql_result", "SELECT COUNT(*), MIN(age) FROM people WHERE age > 30", task
    ).passed


def test_it_stops_a_runaway_query() -> None:
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"
    result = run_layer("sql_result", endless, TASK, timeout=0.2)
    assert result.error_type is ErrorType.TIMEOUT


def test_it_reports_runtime_and_forbidden_errors() -> None:
    assert (
        run_layer("sql_result", "SELECT nope FROM people", TASK).error_type
        is ErrorType.RUNTIME_ERROR
    )
    assert run_layer("sql_result", "DROP TABLE people", TASK).error_type is ErrorType.FORBIDDEN


def test_it_blames_the_task_for_a_broken_reference() -> None:
    task = {**TASK, "reference_sql": "SELECT missing FROM people"}
    assert run_layer("sql_result", "SELECT 1", task).error_type is ErrorType.VERIFIER_ERROR
    assert run_layer("sql_result", "SELECT 1", {}).error_type is ErrorType.VERIFIER_ERROR


def test_it_refuses_a_task_schema_that_attaches_a_file(tmp_path: Path) -> None:
    target = tmp_path / "app.sqlite3"
    hostile = {**TASK, "schema_sql": f"ATTACH DATABASE '{target}' AS app; {SCHEMA_SQL}"}
    for kind in ("sql_parse", "sql_result"):
        result = run_layer(kind, "SELECT name FROM people", hostile)
        assert result.error_type is ErrorType.VERIFIER_ERROR, kind
        assert result.detail.startswith("schema_sql:"), result.detail
    assert not target.exists()


def test_it_stops_a_task_schema_at_the_layers_time_limit() -> None:
    endless = "CREATE TABLE n AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    task = {**TASK, "schema_sql": endless + "SELECT max(x) FROM c"}
    started = time.monotonic()
    result = run_layer("sql_result", "SELECT 1", task, timeout=0.3)
    assert time.monotonic() - started < 3.0
    assert result.error_type is ErrorType.VERIFIER_ERROR and "time limit" in result.detail


def test_it_judges_a_query_that_returns_too_much_as_an_output_limit() -> None:
    result = run_layer("sql_result", "SELECT zeroblob(100000000)", TASK)
    assert result.error_type is ErrorType.OUTPUT_LIMIT
    task = {"schema_sql": SCHEMA_SQL, "expected_rows": [["Ada"]]}
    many = run_layer("sql_result", "SELECT name FROM people", task, max_rows=2)
    assert many.error_type is ErrorType.OUTPUT_LIMIT
