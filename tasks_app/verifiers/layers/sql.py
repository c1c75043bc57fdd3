"""SQL layers on SQLite: the statement parses as one read-only query; its rows are the right ones.

Every candidate runs on a fresh in-memory database built from ``expected["schema_sql"]``, under
an authoriser that allows only reading (no writes, ATTACH, PRAGMA, or loading extensions) and
a progress handler that interrupts it past its time limit.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, number, params_object

_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION}
_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)  # WITH RECURSIVE
_PROGRESS_EVERY = 1000  # SQLite VM instructions between deadline checks
_FLOAT_DIGITS = 6  # SUM/AVG drift between equivalent queries stays below this


class SqlProblem(Exception):
    def __init__(self, error_type: ErrorType, detail: str) -> None:
        super().__init__(detail)
        self.error_type = error_type
        self.detail = detail


def _read_only(action: int, *args: Any) -> int:
    allowed = action in _READ_ACTIONS or action == _RECURSIVE
    return sqlite3.SQLITE_OK if allowed else sqlite3.SQLITE_DENY


@contextmanager
def sandboxed_db(schema_sql: str, seconds: float) -> Iterator[sqlite3.Connection]:
    """A fresh in-memory database from ``schema_sql``, then locked to reads within ``seconds``."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(schema_sql)
        conn.set_authorizer(_read_only)
        conn.set_progress_handler(_deadline(time.monotonic() + seconds), _PROGRESS_EVERY)
        yield conn
    finally:
        conn.close()


def _deadline(until: float) -> Callable[[], int]:
    return lambda: int(time.monotonic() > until)  # non-zero interrupts the statement


def classify(exc: sqlite3.Error | sqlite3.Warning, statement: str) -> SqlProblem:
    """Map SQLite's complaint onto the taxonomy."""
    message = str(exc)
    if "not authorized" in message:
        return SqlProblem(ErrorType.FORBIDDEN, "only a read-only SELECT is allowed")
    if "interrupted" in message:
        return SqlProblem(ErrorType.TIMEOUT, "the query ran past its time limit")
    if "one statement at a time" in message:
        return SqlProblem(ErrorType.PARSE_ERROR, "more than one statement")
    if "syntax error" in message or "incomplete input" in message:
        return SqlProblem(ErrorType.PARSE_ERROR, message)
    return SqlProblem(ErrorType.RUNTIME_ERROR, message)


def run_query(conn: sqlite3.Connection, statement: str, max_rows: int) -> list[tuple[Any, ...]]:
    try:
        rows = conn.execute(statement).fetchmany(max_rows + 1)
    except (sqlite3.Error, sqlite3.Warning) as exc:
        raise classify(exc, statement) from exc
    if len(rows) > max_rows:
        raise SqlProblem(ErrorType.OUTPUT_LIMIT, f"more than {max_rows} rows")
    return rows


def prepare(conn: sqlite3.Connection, statement: str) -> None:
    """Compile ``statement`` without running it: EXPLAIN prepares, and stops at the plan."""
    if not sqlite3.complete_statement(statement.strip().rstrip(";") + ";"):
        raise SqlProblem(ErrorType.PARSE_ERROR, "incomplete statement")
    run_query(conn, "EXPLAIN " + statement.strip().rstrip(";"), max_rows=1_000_000)


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
        try:
            with sandboxed_db(schema_sql, seconds=2.0) as conn:
                prepare(conn, extracted)
        except SqlProblem as problem:
            if not schema_sql and "no such" in problem.detail:
                return self.ok(detail="no schema given: syntax only")
            return self.fail(problem.error_type, problem.detail)
        except sqlite3.Error as exc:  # the task's own schema_sql is broken
            return self.fail(ErrorType.VERIFIER_ERROR, f"schema_sql: {exc}")
        return self.ok()


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
        if expected.get("expected_rows") is None and not expected.get("reference_sql"):
            return self.missing("reference_sql")
        try:
            want = self._reference_rows(expected)
        except (SqlProblem, sqlite3.Error) as exc:
            return self.fail(ErrorType.VERIFIER_ERROR, f"reference: {exc}")
        try:
            got = normal_rows(self._rows(expected["schema_sql"], extracted))
        except SqlProblem as problem:
            return self.fail(problem.error_type, problem.detail)
        except sqlite3.Error as exc:  # raised while building the task's database, not by the query
            return self.fail(ErrorType.VERIFIER_ERROR, f"schema_sql: {exc}")
        return self._compare(got, want, bool(expected.get("ordered")))

    def _rows(self, schema_sql: str, statement: str) -> list[tuple[Any, ...]]:
        seconds, max_rows = self.params.get("timeout", 2.0), self.params.get("max_rows", 10000)
        with sandboxed_db(schema_sql, seconds) as conn:
            return run_query(conn, statement.strip().rstrip(";"), max_rows)

    def _reference_rows(self, expected: Expected) -> list[tuple[Any, ...]]:
        if expected.get("expected_rows") is not None:
            return normal_rows(expected["expected_rows"])
        return normal_rows(self._rows(expected["schema_sql"], expected["reference_sql"]))

    def _compare(self, got: list[Any], want: list[Any], ordered: bool) -> LayerResult:
        same = got == want if ordered else Counter(got) == Counter(want)
        info: dict[str, Any] = {"rows": len(got), "expected_rows": len(want), "ordered": ordered}
        if same:
            return self.ok(**info)
        why = "rows are in the wrong order" if Counter(got) == Counter(want) else "rows differ"
        return self.fail(ErrorType.WRONG_ANSWER, why, overlap(got, want), **info)
