"""A SQL tool for SQL questions: the model queries the task's database, then gives its query.

Pure Python: no Django import. Each call runs where the sql-query verifier runs candidates
(``tasks_app.verifiers.sqlbox``): a confined child process with a fresh in-memory copy of the
task's database built from ``expected["schema_sql"]``, read-only, within a time limit and the
box's memory and size limits. The model sees at most ``rows_shown`` rows. The final answer (a
message without a tool call, with its query in a ```sql block) is judged by the sql-query
family's verifier.
"""

from __future__ import annotations

import json
from typing import Any

from tasks_app.environments.base import EpisodeLimits, ToolCall
from tasks_app.environments.tool_calls import truncated
from tasks_app.environments.tool_env import (
    ToolEnvironment,
    ToolOutcome,
    text_tool,
    timed_params,
)
from tasks_app.verifiers import sqlbox
from tasks_app.verifiers.layers.sql import classify, statement_text

name = "sql-tool"
label = "SQL tool (SQL questions)"
description = (
    "SQL questions with a query tool: the model may run read-only queries on the task's "
    "database and see their rows before giving its final query."
)
family = "sql-query"
SQL = text_tool(
    "sql",
    "Run one read-only SQLite query on the task's database and see its rows.",
    "query",
    "One query.",
)
tools = (SQL,)
default_limits = EpisodeLimits(max_turns=4, max_tokens_per_turn=256, max_total_tokens=4096)
OUTPUT_CHARS = 4000
"""A tool message's text, whatever the rows: the conversation must fit the model's context."""
params_schema = timed_params(
    rows_shown={"type": "integer", "minimum": 1, "maximum": 200, "default": 20}
)


class SqlToolEnvironment(ToolEnvironment):
    tools = (SQL,)
    params_schema = params_schema

    purpose = "You can query the database."
    example_arguments = '{"query": "SELECT COUNT(*) FROM employees"}'
    answer_rule = (
        "When you are sure, reply without a tool call, with your final query in a ```sql block."
    )

    def run_tool(self, call: ToolCall) -> ToolOutcome:
        schema_sql = (self.task.expected.get("schema_sql") if self.task else None) or ""
        shown = self.params["rows_shown"]
        query = statement_text(call.arguments["query"])
        try:
            [outcome] = sqlbox.run(
                schema_sql, [query], seconds=float(self.params["timeout_s"]), max_rows=shown
            )
        except sqlbox.SchemaError as exc:  # the task's own database, not the model's query
            return ToolOutcome(f"the task's database does not build: {exc}", "verifier_error")
        except sqlbox.BoxError as exc:
            return ToolOutcome(f"error: {exc}", "timeout" if exc.timed_out else "sandbox_error")
        if outcome.rows is None:
            problem = classify(outcome.error or "no rows")
            return ToolOutcome(f"error: {problem.detail}", str(problem.error_type))
        return ToolOutcome(rows_text(outcome.rows, shown), None, {"rows": len(outcome.rows)})


def rows_text(rows: list[tuple[Any, ...]], shown: int) -> str:
    """A count, then one JSON array per row, at most ``shown`` of them (sqlbox fetches one more
    than it is asked for, so a longer answer is told apart)."""
    if not rows:
        return "0 rows"
    many = len(rows) > shown
    head = f"more than {shown} rows; the first {shown}:" if many else f"{len(rows)} row(s):"
    lines = [json.dumps(list(row), default=str) for row in rows[:shown]]
    return truncated("\n".join([head, *lines]), OUTPUT_CHARS)


def make(params: dict[str, Any] | None = None) -> SqlToolEnvironment:
    return SqlToolEnvironment(params)
