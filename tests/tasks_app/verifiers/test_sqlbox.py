import errno
import os
import resource
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tasks_app.verifiers import sqlbox

SCHEMA_SQL = "CREATE TABLE t (x INTEGER, b BLOB); INSERT INTO t VALUES (1, x'00ff'), (2, NULL);"
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"


def run(schema_sql: str, *statements: str, seconds: float = 2.0) -> list[sqlbox.Outcome]:
    return sqlbox.run(schema_sql, list(statements) or ["SELECT 1"], seconds=seconds, max_rows=100)


def test_it_returns_rows_blobs_included_and_each_statements_complaint() -> None:
    good, bad, write = run(SCHEMA_SQL, "SELECT * FROM t ORDER BY x", "SELEC", "DELETE FROM t")
    assert good.rows == [(1, b"\x00\xff"), (2, None)]
    assert bad.error is not None and "syntax error" in bad.error
    assert write.error == "not authorized"


def test_it_lets_a_schema_build_its_own_tables_the_way_dumps_write_them() -> None:
    dump = (
        "PRAGMA foreign_keys=OFF; BEGIN TRANSACTION; DROP TABLE IF EXISTS p;"
        "CREATE TABLE p (id INTEGER PRIMARY KEY, n TEXT); INSERT INTO p VALUES (1, 'a');"
        "CREATE INDEX p_n ON p (n); CREATE VIEW v AS SELECT n FROM p; UPDATE p SET n = 'b';"
        "COMMIT;"
    )
    assert run(dump, "SELECT n FROM v")[0].rows == [("b",)]


def test_it_refuses_a_schema_that_attaches_a_file_and_creates_none(tmp_path: Path) -> None:
    target = tmp_path / "app.sqlite3"
    with pytest.raises(sqlbox.SchemaError, match="no ATTACH"):
        run(f"ATTACH DATABASE '{target}' AS app; CREATE TABLE app.t (x);")
    assert not target.exists()


@pytest.mark.parametrize(
    "schema_sql",
    [
        "VACUUM INTO '{path}'",
        "PRAGMA temp_store_directory = '{dir}'",
        "PRAGMA journal_mode = WAL",
        "SELECT load_extension('{path}')",
        "CREATE TEMP TABLE t (x)",
        "CREATE VIRTUAL TABLE v USING fts5(a)",
    ],
)
def test_it_refuses_schema_statements_that_reach_files_or_extensions(
    tmp_path: Path, schema_sql: str
) -> None:
    path = tmp_path / "out.db"
    with pytest.raises(sqlbox.SchemaError, match="may only create and fill"):
        run(schema_sql.format(path=path, dir=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_it_refuses_extensions_and_pragmas_in_statements_too() -> None:
    outcomes = run(SCHEMA_SQL, "SELECT load_extension('x')", "PRAGMA table_info(t)")
    assert all(str(o.error).startswith("not authorized") for o in outcomes), outcomes


def test_it_stops_a_recursive_schema_at_its_deadline() -> None:
    started = time.monotonic()
    with pytest.raises(sqlbox.SchemaError, match="time limit"):
        run(f"CREATE TABLE n AS {ENDLESS} SELECT max(x) FROM c;", seconds=0.5)
    assert time.monotonic() - started < 3 * 0.5 + sqlbox.GRACE_S


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def test_it_stops_an_unbounded_schema_without_the_caller_growing() -> None:
    before = _peak_rss_bytes()
    for schema_sql in (
        f"CREATE TABLE t AS {ENDLESS} SELECT x FROM c",  # a row per step, until a limit
        f"CREATE TABLE t AS {ENDLESS} SELECT randomblob(100000) FROM c",  # fills pages fast
    ):
        with pytest.raises(sqlbox.SchemaError, match="time limit|larger than"):
            run(schema_sql, seconds=5.0)
    assert _peak_rss_bytes() - before < 50 << 20


def test_it_caps_a_value_the_rows_and_the_time_of_each_statement() -> None:
    huge, endless = run(
        "", "SELECT zeroblob(100000000)", f"{ENDLESS} SELECT max(x) FROM c", seconds=0.3
    )
    assert huge.error == "string or blob too big"
    assert endless.error == "interrupted"
    many = sqlbox.run("", [f"{ENDLESS} SELECT x FROM c LIMIT 50"], seconds=1, max_rows=10)
    assert many[0].rows is not None and len(many[0].rows) == 11  # one more says "too many"
    wide = f"{ENDLESS} SELECT printf('%.*c', 900000, 'x') FROM c LIMIT 100"
    assert "larger than" in str(run("", wide)[0].error)


def test_it_refuses_an_oversized_schema_before_starting_anything() -> None:
    with pytest.raises(sqlbox.SchemaError, match="longer than"):
        run("-" * (sqlbox.SCHEMA_LIMIT_CHARS + 1))


def test_it_reports_a_schema_that_does_not_parse() -> None:
    with pytest.raises(sqlbox.SchemaError, match="syntax error"):
        run("CREATE TABLE (")


def test_it_starts_a_new_helper_when_the_old_one_has_died() -> None:
    run(SCHEMA_SQL)
    helper = sqlbox._HELPER.process
    assert helper is not None
    helper.kill()
    helper.wait()
    assert run(SCHEMA_SQL, "SELECT count(*) FROM t")[0].rows == [(2,)]


def test_it_serves_concurrent_callers_each_their_own_database() -> None:
    def count(n: int) -> list[tuple[int, ...]] | None:
        schema_sql = f"CREATE TABLE t (x); {'INSERT INTO t VALUES (1);' * n}"
        return run(schema_sql, "SELECT count(*) FROM t")[0].rows

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(count, range(16))) == [[(n,)] for n in range(16)]


def test_it_leaves_a_confined_child_no_way_to_open_or_write_a_file(tmp_path: Path) -> None:
    # What the kernel holds the child to, whatever SQLite might be talked into.
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the forked child reports through its exit status
        status = 1
        try:
            os.dup2(os.open(os.devnull, os.O_RDONLY), 3)
            os.closerange(4, 1 << 16)
            sqlbox._confine(5.0)
            try:
                os.open(tmp_path / "leak.db", os.O_WRONLY | os.O_CREAT)
            except OSError as exc:
                status = 0 if exc.errno == errno.EMFILE else 2
        finally:
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(wait_status) == 0
    assert not (tmp_path / "leak.db").exists()
