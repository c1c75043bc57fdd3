"""SQL questions over a generated SQLite database; the query is judged by the rows it returns.

Generation runs the reference query over the task's database to record ``expected_rows``;
model-written queries are run by the verifier, not here. Imported rows carry a user's schema and
reference SQL, so both run where the verifier runs them: in a confined child process
(:mod:`tasks_app.verifiers.sqlbox`), never in the calling one.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import RowError, Task
from tasks_app.verifiers import sqlbox

name = "sql-query"
label = "SQL queries"
description = "Write one SQLite query that answers a question about the given tables."
difficulty_levels = [1, 2, 3, 4, 5]
ROWS = {1: 5, 2: 8, 3: 12, 4: 16, 5: 24}
"""Employees in the generated database at each level."""
prompt_template = (
    "The SQLite database has these tables and rows:\n\n```sql\n{schema_sql}\n```\n\n"
    "{question}\nReply with one query in a ```sql block."
)
procedural = True
importable = True
record_fields = ["schema_sql", "prompt", "reference_sql", "ordered", "difficulty", "source_id"]
required_fields = ["schema_sql", "prompt", "reference_sql"]
params_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
QUERY_TIMEOUT_S = 5.0
"""Building a task's database, then running its reference query: generous for small tables."""
ROW_LIMIT = 10_000
"""Rows a reference answer may have: the sql_result layer's default limit."""

_NAMES = ["Ada", "Alan", "Barbara", "Claude", "Dana", "Edsger", "Frances", "Grace", "Hedy"]
_NAMES += ["Ivan", "John", "Ken", "Leslie", "Margaret", "Niklaus", "Ole", "Peter", "Radia"]
_NAMES += ["Shafi", "Tony", "Ursula", "Vint", "Whitfield", "Xavier", "Yukihiro", "Zuse"]
_DEPTS = ["sales", "research", "support", "finance", "legal"]

Question = tuple[str, str, bool]
"""(question, reference SQL, whether row order matters)."""


def _filter(rng: random.Random) -> Question:
    cut = rng.choice([40, 50, 60, 70]) * 1000
    return (
        f"List the names of employees whose salary is above {cut}.",
        f"SELECT name FROM employees WHERE salary > {cut}",
        False,
    )


def _top(rng: random.Random) -> Question:
    k = rng.randint(2, 4)
    return (
        f"List the names of the {k} best-paid employees, highest salary first.",
        f"SELECT name FROM employees ORDER BY salary DESC LIMIT {k}",
        True,
    )


def _aggregate(rng: random.Random) -> Question:
    return (
        "For each department with employees, give its name and its total salary.",
        "SELECT dept, SUM(salary) FROM employees GROUP BY dept",
        False,
    )


def _join(rng: random.Random) -> Question:
    floor = rng.randint(1, 3)
    return (
        f"List the names of employees whose department is on floor {floor}.",
        "SELECT e.name FROM employees e JOIN departments d ON e.dept = d.name "
        f"WHERE d.floor = {floor}",
        False,
    )


def _having(rng: random.Random) -> Question:
    k = rng.randint(2, 4)
    return (
        f"For each floor with more than {k} employees, give the floor and the head count, "
        "largest head count first, then lowest floor.",
        "SELECT d.floor, COUNT(*) AS n FROM employees e JOIN departments d ON e.dept = d.name "
        f"GROUP BY d.floor HAVING COUNT(*) > {k} ORDER BY n DESC, d.floor",
        True,
    )


_QUESTIONS: dict[int, Callable[[random.Random], Question]] = {
    1: _filter,
    2: _top,
    3: _aggregate,
    4: _join,
    5: _having,
}


def generate(
    n: int,
    *,
    difficulty: int,
    seed: int,
    params: Mapping[str, Any] | None = None,
    template: str | None = None,
) -> list[Task]:
    common.validate_params(params_schema, params)
    common.check_level(difficulty_levels, difficulty)
    rng = common.seeded_rng(seed, name, difficulty, n)
    return [_generated(rng, difficulty, template) for _ in range(n)]


def _generated(rng: random.Random, difficulty: int, template: str | None) -> Task:
    """A database and question whose answer has rows: an empty answer teaches nothing."""
    while True:
        schema_sql = _database(rng, ROWS[difficulty])
        question, reference_sql, ordered = _QUESTIONS[difficulty](rng)
        task = _task(schema_sql, question, reference_sql, ordered, difficulty, "", None, template)
        if task.expected["expected_rows"]:
            return task


def _database(rng: random.Random, rows: int) -> str:
    """CREATE + INSERT statements; salaries are distinct so ordered questions have one answer."""
    floors = {dept: rng.randint(1, 3) for dept in _DEPTS}
    names = rng.sample(_NAMES, rows)
    salaries = rng.sample(range(30, 95), rows)
    lines = [
        "CREATE TABLE departments (name TEXT PRIMARY KEY, floor INTEGER NOT NULL);",
        "CREATE TABLE employees (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "dept TEXT NOT NULL REFERENCES departments(name), salary INTEGER NOT NULL);",
    ]
    lines += [f"INSERT INTO departments VALUES ('{d}', {f});" for d, f in floors.items()]
    lines += [
        f"INSERT INTO employees VALUES ({i}, '{nm}', '{rng.choice(_DEPTS)}', {s * 1000});"
        for i, (nm, s) in enumerate(zip(names, salaries, strict=True), start=1)
    ]
    return "\n".join(lines)


def _task(
    schema_sql: str,
    question: str,
    reference_sql: str,
    ordered: bool,
    difficulty: int,
    source: str,
    rows: list[list[Any]] | None = None,
    template: str | None = None,
) -> Task:
    return Task(
        family=name,
        prompt=common.fill(template or prompt_template, schema_sql=schema_sql, question=question),
        expected={
            "schema_sql": schema_sql,
            "reference_sql": reference_sql,
            "expected_rows": rows if rows is not None else run_query(schema_sql, reference_sql),
            "ordered": ordered,
        },
        difficulty=difficulty,
        source_id=source,
    )


def run_query(schema_sql: str, query: str) -> list[list[Any]]:
    """Rows of ``query`` over a fresh in-memory database built from ``schema_sql``.

    Raises sqlbox.SchemaError when the schema does not build, sqlite3.Error when the query
    fails, and sqlbox.BoxError when the process running them dies.
    """
    [outcome] = sqlbox.run(schema_sql, [query], seconds=QUERY_TIMEOUT_S, max_rows=ROW_LIMIT)
    if outcome.error == "interrupted":  # by the deadline
        raise sqlite3.OperationalError(f"ran past its time limit ({QUERY_TIMEOUT_S:g} s)")
    if outcome.rows is None:
        raise sqlite3.OperationalError(outcome.error)
    if len(outcome.rows) > ROW_LIMIT:
        raise sqlite3.OperationalError(f"returns more than {ROW_LIMIT} rows")
    return [list(row) for row in outcome.rows]


def from_record(
    record: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    template: str | None = None,
) -> Task:
    """A row with ``schema_sql``, a ``prompt`` question and a ``reference_sql`` that runs."""
    schema_sql = common.require_text(record, "schema_sql")
    question = common.require_text(record, "prompt")
    reference_sql = common.require_text(record, "reference_sql")
    ordered = _flag(record.get("ordered"))
    try:
        rows = run_query(schema_sql, reference_sql)
    except sqlbox.SchemaError as exc:
        raise RowError("schema_sql", f"does not run: {exc}") from None
    except (sqlite3.Error, sqlbox.BoxError) as exc:
        raise RowError("reference_sql", f"does not run: {exc}") from None
    difficulty = common.row_difficulty(record, difficulty_levels, default=1)
    source = common.optional_text(record, "source_id")
    return _task(schema_sql, question, reference_sql, ordered, difficulty, source, rows, template)


def _flag(value: Any) -> bool:
    if value is None or value == "":
        return False
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"true", "1", "yes"}:
        return True
    if text in {"false", "0", "no"}:
        return False
    raise RowError("ordered", f"must be true or false, got {value!r}")


def reference_response(task: Task) -> str:
    return f"```sql\n{task.expected['reference_sql']}\n```"


def extract_answer(response: str) -> str | None:
    return common.fenced_block(response, {"sql", "sqlite"})


def default_verifier() -> dict[str, Any]:
    return {
        "extract": "sql_statement",
        "layers": [
            {"kind": "sql_parse", "name": "parses"},
            {"kind": "sql_result", "name": "rows"},
        ],
        "reward": {"weights": {"outcome": 1.0}},
    }
