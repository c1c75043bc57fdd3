"""SQL layers on SQLite: the statement parses as one read-only query; its rows are the right ones.

Every candidate runs in a child process (:mod:`tasks_app.verifiers.sqlbox`) on a fresh
in-memory database built from ``expected["schema_sql"]``: the schema under an authoriser that
lets it only create and fill its own tables, the candidate under one that allows only reading,
each within the layer's time limit and the box's memory and size limits.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

from tasks_app.verifiers import sqlbox
from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, number, params_object

_FLOAT_DIGITS = 6  # SUM/AVG drift between equivalent queries stays below this
PARSE_TIMEOUT_S = 2.0  # building the schema, then compiling the statement


class SqlProblem(Exception):
    def __init__(self, error_type: ErrorType, detail: str) -> None:
        super().__init__(detail)
        self.error_type = error_type
        self.detail = detail


# SQLite's complaint (or the box's) -> the taxonomy; the first key found in the message wins.
_COMPLAINTS: dict[str, tuple[ErrorType, str | None]] = {
    "not authorized": (ErrorType.FORBIDDEN, "only a read-only SELECT is allowed"),
    "interrupted": (ErrorType.TIMEOUT, "the query ran past its time limit"),
    "one statement at a time": (ErrorType.PARSE_ERROR, "more than one statement"),
    "syntax error": (ErrorType.PARSE_ERROR, None),
    "incomplete input": (ErrorType.PARSE_ERROR, None),
    "out of memory": (ErrorType.MEMORY_LIMIT, "the query needs too much memory"),
    "string or blob too big": (ErrorType.OUTPUT_LIMIT, None),
    "the rows are larger than": (ErrorType.OUTPUT_LIMIT, None),
}


def classify(message: str) -> SqlProblem:
    """Map SQLite's complaint onto the taxonomy."""
    for key, (error_type, detail) in _COMPLAINTS.items():
        if key in message:
            return SqlProblem(error_type, detail or message)
    return SqlProblem(ErrorType.RUNTIME_ERROR, message)


def rows_of(outcome: sqlbox.Outcome, max_rows: int) -> list[tuple[Any, ...]]:
    """The statement's rows, or the SqlProblem that stopped it."""
    if outcome.rows is None:
        raise classify(outcome.error or "no rows")
    if len(outcome.rows) > max_rows:
        raise SqlProblem(ErrorType.OUTPUT_LIMIT, f"more than {max_rows} rows")
    return outcome.rows


def box_problem(exc: sqlbox.BoxError) -> SqlProblem:
    if exc.timed_out:
        return SqlProblem(ErrorType.TIMEOUT, "the query ran past its time limit")
    return SqlProblem(ErrorType.SANDBOX_ERROR, str(exc))


def statement_text(statement: str) -> str:
    return statement.strip().rstrip(";")


def _normal(value: Any) -> Any:
    return round(value, _FLOAT_DIGITS) if isinstance(value, float) else value


def normal_rows(rows: list[Any]) -> list[tuple[Any, ...]]:
    """Rows as tuples (JSON gives lists) with floats rounded; 3 and 3.0 then compare equal."""
    return [tuple(_normal(v) for v in row) for row in rows]


def overlap(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]]) -> float:
    """Multiset Jaccard similarity of two row lists: partial credit for the process reward."""
    a, b = Counter(got), Counter(want)
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 1.0


_LIMIT_PARAMS: dict[str, Any] = {
    "timeout": number(minimum=0.01, default=2.0, maximum=60, description="seconds per query"),
    "max_rows": {"type": "integer", "minimum": 1, "default": 10000},
}


class SqlParse(Layer):
    kind = "sql_parse"
    stage = Stage.SYNTAX
    description = 'One read-only SELECT that compiles against expected["schema_sql"].'
    params_schema = params_object({})

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        schema_sql = expected.get("schema_sql") or ""
        statement = statement_text(extracted)
        if not sqlite3.complete_statement(statement + ";"):
            return self.fail(ErrorType.PARSE_ERROR, "incomplete statement")
        try:  # EXPLAIN compiles the statement and stops at the plan
            [outcome] = sqlbox.run(
                schema_sql, ["EXPLAIN " + statement], seconds=PARSE_TIMEOUT_S, max_rows=0
            )
        except sqlbox.SchemaError as exc:  # the task's own schema_sql is at fault
            return self.fail(ErrorType.VERIFIER_ERROR, f"schema_sql: {exc}")
        except sqlbox.BoxError as exc:
            return self._failed(box_problem(exc))
        if outcome.error is None:
            return self.ok()
        if not schema_sql and "no such" in outcome.error:
            return self.ok(detail="no schema given: syntax only")
        return self._failed(classify(outcome.error))

    def _failed(self, problem: SqlProblem) -> LayerResult:
        return self.fail(problem.error_type, problem.detail)


class SqlResult(Layer):
    kind = "sql_result"
    stage = Stage.SEMANTIC
    description = "The rows equal the reference's (as multisets unless expected['ordered'])."
    params_schema = params_object(_LIMIT_PARAMS)

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        if expected.get("schema_sql") is None:
            return self.missing("schema_sql")
        given = expected.get("expected_rows")
        if given is None and not expected.get("reference_sql"):
            return self.missing("reference_sql")
        statements = [extracted] if given is not None else [expected["reference_sql"], extracted]
        try:
            outcomes = self._run(expected["schema_sql"], statements)
        except sqlbox.SchemaError as exc:  # raised while building the task's database
            return self.fail(ErrorType.VERIFIER_ERROR, f"schema_sql: {exc}")
        except sqlbox.BoxError as exc:
            problem = box_problem(exc)
            return self.fail(problem.error_type, problem.detail)
        try:
            want = normal_rows(given) if given is not None else self._rows(outcomes[0])
        except SqlProblem as problem:
            return self.fail(ErrorType.VERIFIER_ERROR, f"reference: {problem.detail}")
        try:
            got = normal_rows(self._rows(outcomes[-1]))
        except SqlProblem as problem:
            return self.fail(problem.error_type, problem.detail)
        return self._compare(got, want, bool(expected.get("ordered")))

    def _run(self, schema_sql: str, statements: list[str]) -> list[sqlbox.Outcome]:
        """The reference (when there is one) and the candidate, on one build of the schema."""
        seconds, max_rows = self.params.get("timeout", 2.0), self.params.get("max_rows", 10000)
        texts = [statement_text(s) for s in statements]
        return sqlbox.run(schema_sql, texts, seconds=seconds, max_rows=max_rows)

    def _rows(self, outcome: sqlbox.Outcome) -> list[tuple[Any, ...]]:
        return normal_rows(rows_of(outcome, self.params.get("max_rows", 10000)))

    def _compare(self, got: list[Any], want: list[Any], ordered: bool) -> LayerResult:
        same = got == want if ordered else Counter(got) == Counter(want)
        info: dict[str, Any] = {"rows": len(got), "expected_rows": len(want), "ordered": ordered}
        if same:
            return self.ok(**info)
        why = "rows are in the wrong order" if Counter(got) == Counter(want) else "rows differ"
        return self.fail(ErrorType.WRONG_ANSWER, why, overlap(got, want), **info)
