"""What confining SQL costs: one sql_result judgment in the confined child, against in-process.

Ours: ``sqlbox.run`` builds a generated sql-query task's schema and runs its reference and
a candidate query in a child forked from the helper (what the sql_result layer does per
response). Anchor: the same work in the calling process, with ``executescript`` and two
queries on a fresh in-memory connection (no limits at all: what the layer used to do).

Prints one JSON line; ``ratio`` = anchor ms / our ms (below 1: the price of the child).

    python bench/sql_box.py [--calls 500]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks_app.families import sql_query  # noqa: E402
from tasks_app.verifiers import sqlbox  # noqa: E402


def ours(schema_sql: str, queries: list[str], calls: int) -> float:
    sqlbox.run(schema_sql, queries, seconds=2.0, max_rows=10_000)  # starts the helper
    started = time.perf_counter()
    for _ in range(calls):
        sqlbox.run(schema_sql, queries, seconds=2.0, max_rows=10_000)
    return (time.perf_counter() - started) / calls * 1000


def anchor(schema_sql: str, queries: list[str], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        conn = sqlite3.connect(":memory:")
        conn.executescript(schema_sql)
        for query in queries:
            conn.execute(query).fetchmany(10_001)
        conn.close()
    return (time.perf_counter() - started) / calls * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    calls = parser.parse_args().calls
    task = sql_query.generate(1, difficulty=5, seed=1)[0]
    schema_sql, reference = task.expected["schema_sql"], task.expected["reference_sql"]
    queries = [reference, "SELECT name FROM employees ORDER BY salary"]
    ours_ms, anchor_ms = ours(schema_sql, queries, calls), anchor(schema_sql, queries, calls)
    print(
        json.dumps(
            {
                "bench": "sql_box",
                "ours": round(ours_ms, 3),
                "anchor": round(anchor_ms, 3),
                "unit": "ms per judgment",
                "ratio": round(anchor_ms / ours_ms, 3),
                "calls": calls,
            }
        )
    )


if __name__ == "__main__":
    main()
