"""User-given SQL (a schema, then statements to judge) run in a short-lived, confined process.

A task's ``schema_sql`` and every statement judged against it come from users (imported rows,
the verifier playground), so none of it runs in the calling process. Each calling process
starts, on first use, one small helper: this file run as a script in isolated mode, with an
empty environment and only the standard library loaded. The helper forks one child per
request: forking a ~20 MB process is cheap, where forking a web or training process would
copy gigabytes of page tables, inherit its threads and secrets, and leave no room under an
address-space limit, and a pool of long-lived workers would carry one request's database and
any damage into the next. A judgment (schema, reference and candidate in one child) costs
about 4 ms against 0.3 ms in-process (``bench/sql_box.py``, on a loaded 2-core machine);
callers wait on a socket without the GIL, so judging from several threads runs children in
parallel. The child:

- builds a fresh in-memory database from the schema under an authoriser that allows only
  creating and filling tables, indexes, views and triggers of that database (no ATTACH, which
  ``VACUUM INTO`` uses too; no extensions; no PRAGMA but foreign keys; no temp or virtual
  tables), then runs each statement under a read-only authoriser;
- gives the schema and each statement the caller's deadline through SQLite's progress
  handler, and caps the database size, SQLite's heap, one value, one statement's text, LIKE
  patterns and attached databases (none) with SQLite's own limits;
- runs under limits the kernel enforces whatever SQLite does: address space, CPU seconds, no
  new file descriptors, no file bytes, no core file, no new process, and a wall-clock alarm.

It answers with JSON lines (the schema's fate, then each statement's rows or complaint); the
caller decides what they mean.
"""

from __future__ import annotations

import atexit
import gc
import json
import math
import os
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

DATABASE_LIMIT_BYTES = 64 << 20  # the whole in-memory database (max_page_count x page size)
HEAP_LIMIT_BYTES = 256 << 20  # SQLite's allocations; past it a statement fails "out of memory"
ADDRESS_SPACE_HEADROOM_BYTES = 768 << 20  # RLIMIT_AS above the child's size when it is forked
VALUE_LIMIT_BYTES = 1 << 20  # one string, blob or row
STATEMENT_LIMIT_BYTES = 1 << 20  # one statement's SQL text
SCHEMA_LIMIT_CHARS = 8_000_000  # the whole schema_sql: refused before any process is involved
REPLY_LIMIT_BYTES = 16 << 20  # the rows one request may send back, all statements together
LIKE_PATTERN_LIMIT_CHARS = 1000  # long LIKE/GLOB patterns make one comparison slow
GRACE_S = 1.0  # wall time past all deadlines before the kernel's alarm kills the child
PROGRESS_EVERY_OPS = 1000  # SQLite VM instructions between deadline checks

_OK, _DENY = sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY
_READ_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
_BUILD_ACTIONS = _READ_ACTIONS | {
    sqlite3.SQLITE_CREATE_TABLE,
    sqlite3.SQLITE_CREATE_INDEX,
    sqlite3.SQLITE_CREATE_VIEW,
    sqlite3.SQLITE_CREATE_TRIGGER,
    sqlite3.SQLITE_INSERT,  # also how SQLite records a new table in sqlite_master
    sqlite3.SQLITE_UPDATE,
    sqlite3.SQLITE_DELETE,
    sqlite3.SQLITE_DROP_TABLE,
    sqlite3.SQLITE_DROP_INDEX,
    sqlite3.SQLITE_DROP_VIEW,
    sqlite3.SQLITE_DROP_TRIGGER,
    sqlite3.SQLITE_ALTER_TABLE,
    sqlite3.SQLITE_REINDEX,
    sqlite3.SQLITE_ANALYZE,
    sqlite3.SQLITE_TRANSACTION,
    sqlite3.SQLITE_SAVEPOINT,
}
_BUILD_PRAGMAS = frozenset({"foreign_keys", "defer_foreign_keys"})  # what `.dump` writes
_UNSAFE_FUNCTIONS = frozenset({"load_extension", "fts3_tokenizer"})


@dataclass(frozen=True)
class Outcome:
    """One statement's result: its rows (at most max_rows + 1), or why it has none."""

    rows: list[tuple[Any, ...]] | None = None
    error: str | None = None  # SQLite's complaint, or the limit it ran into


class SchemaError(Exception):
    """The schema SQL was refused, failed, or ran past a limit: the task's fault."""


class BoxError(Exception):
    """The child died before answering, or could not be started."""

    def __init__(self, detail: str, *, timed_out: bool = False) -> None:
        super().__init__(detail)
        self.timed_out = timed_out


def run(
    schema_sql: str, statements: Sequence[str], *, seconds: float, max_rows: int
) -> list[Outcome]:
    """Build ``schema_sql`` and run each statement read-only on it, ``seconds`` for each step.

    Raises SchemaError when the schema does not build, BoxError when the child dies.
    """
    if len(schema_sql) > SCHEMA_LIMIT_CHARS:
        raise SchemaError(f"is longer than {SCHEMA_LIMIT_CHARS:,} characters")
    wall_s = seconds * (1 + len(statements)) + GRACE_S
    request = {
        "schema_sql": schema_sql,
        "statements": list(statements),
        "seconds": seconds,
        "max_rows": max_rows,
        "wall_s": wall_s,
    }
    started = time.monotonic()
    reply = _HELPER.ask(json.dumps(request).encode(), wall_s + GRACE_S)
    return _outcomes(reply, seconds, time.monotonic() - started >= wall_s)


def _outcomes(reply: bytes, seconds: float, late: bool) -> list[Outcome]:
    lines = _lines(reply)
    if not lines:
        what = f"ran past its time limit ({seconds:g} s)" if late else "made the SQL process die"
        raise SchemaError(what)
    if lines[0]["schema_error"] is not None:
        raise SchemaError(_schema_reason(lines[0]["schema_error"], seconds))
    if len(lines) < 2:
        what = "ran past its time limit" if late else "died before answering"
        raise BoxError(f"the SQL process {what}", timed_out=late)
    return [
        Outcome(rows=[tuple(r) for r in o["rows"]]) if "rows" in o else Outcome(error=o["error"])
        for o in lines[1]["outcomes"]
    ]


def _lines(reply: bytes) -> list[dict[str, Any]]:
    """The complete JSON lines of a reply; a child killed mid-write leaves a partial last one."""
    lines = []
    for line in reply.splitlines():
        try:
            lines.append(json.loads(line, object_hook=_decode))
        except ValueError:
            break
    return lines


def _schema_reason(message: str, seconds: float) -> str:
    """SQLite's complaint about the schema, in the terms of the limits above."""
    refused = (
        "may only create and fill tables, indexes, views and triggers "
        "(no ATTACH, PRAGMA, extensions, temp or virtual tables)"
    )
    reasons = {
        "not authorized": refused,
        "authorization denied": refused,  # VACUUM INTO, refused as the ATTACH it needs
        "interrupted": f"ran past its time limit ({seconds:g} s)",
        "database or disk is full": f"builds a database larger than {DATABASE_LIMIT_BYTES >> 20} MiB",
        "out of memory": f"needs more than {HEAP_LIMIT_BYTES >> 20} MiB of memory",
        "too many attached": "may not attach databases",
    }
    return next((why for key, why in reasons.items() if key in message), message)


def _decode(obj: dict[str, Any]) -> Any:
    return bytes.fromhex(obj["blob"]) if obj.keys() == {"blob"} else obj


class _Helper:
    """The calling process's link to its forking helper, started on first use."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None

    def ask(self, request: bytes, timeout_s: float) -> bytes:
        deadline = time.monotonic() + timeout_s
        with self._child() as child:
            try:
                child.settimeout(timeout_s)
                child.sendall(request)
                child.shutdown(socket.SHUT_WR)
                return _read_reply(child, deadline)
            except TimeoutError as exc:
                raise BoxError("the SQL process ran past its time limit", timed_out=True) from exc
            except OSError as exc:
                raise BoxError(f"the SQL process hung up ({exc})") from exc

    def _child(self) -> socket.socket:
        """A stream to a freshly forked child."""
        ours, theirs = socket.socketpair()
        with theirs:
            try:
                self._send(theirs.fileno())
            except OSError as exc:
                ours.close()
                raise BoxError(f"the SQL helper is unavailable ({exc})") from exc
        return ours

    def _send(self, fd: int) -> None:
        control = self._control()
        try:
            socket.send_fds(control, [b"run"], [fd])
        except OSError:  # the helper has gone away: start another, once
            socket.send_fds(self._control(failed=control), [b"run"], [fd])

    def _control(self, failed: socket.socket | None = None) -> socket.socket:
        """The helper's control socket; a new helper when there is none or ``failed`` is it."""
        with self.lock:
            if self.control is None or self.control is failed:
                self._start()
            assert self.control is not None
            return self.control

    def _start(self) -> None:
        self.close()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                env={},  # nothing of the platform's: no database URL, no secret key
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # a terminal's Ctrl-C stops the caller, which ends it
            )
        self.control = ours

    def close(self) -> None:
        """Hang up: the helper exits when it reads the end of its control socket."""
        if self.control is not None:
            self.control.close()
        if self.process is not None:
            try:
                self.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.control = self.process = None

    def forget(self) -> None:
        """In a forked copy of the caller: start its own helper rather than share this one."""
        if self.control is not None:
            self.control.close()
        self.lock, self.control, self.process = threading.Lock(), None, None


def _read_reply(child: socket.socket, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= REPLY_LIMIT_BYTES * 2:  # JSON of rows is at most about twice their size
        child.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = child.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    raise BoxError("the SQL process answered too much")


_HELPER = _Helper()
os.register_at_fork(after_in_child=_HELPER.forget)
atexit.register(_HELPER.close)


# --- the helper and its children: this file run as a script -------------------------------


def serve(control_fd: int) -> None:
    """The helper's loop: one forked child per request, until its caller hangs up."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children
    for fd in (0, 1, 2):  # held open, so that a child's fds 0-3 leave nothing free under 4
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)
    gc.disable()
    gc.freeze()  # children then share these pages instead of copying them as gc visits them
    control = socket.socket(fileno=control_fd)
    while True:
        message, fds, _, _ = socket.recv_fds(control, 16, 1)
        if not message:
            return
        if os.fork() == 0:
            control.close()
            _child(fds[0])
        for fd in fds:
            os.close(fd)


def _child(fd: int) -> None:
    """Read the request, confine this process, answer, exit; never returns."""
    try:
        os.dup2(fd, 3)
        os.closerange(4, 1 << 16)
        stream = socket.socket(fileno=3)
        request = json.loads(_read_request(stream))
        _confine(request["wall_s"])
        for line in _answer(request):
            stream.sendall(line)
    finally:
        os._exit(0)


def _read_request(stream: socket.socket) -> bytes:
    chunks = []
    while chunk := stream.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _confine(wall_s: float) -> None:
    """Kernel limits for the rest of this process's short life."""
    limits = {
        resource.RLIMIT_CPU: math.ceil(wall_s),
        resource.RLIMIT_FSIZE: 0,
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_NPROC: 0,
    }
    if os.path.exists("/proc/self/statm"):  # Linux: the size this process starts from
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * resource.getpagesize()
        limits[resource.RLIMIT_AS] = size + ADDRESS_SPACE_HEADROOM_BYTES
    limits[resource.RLIMIT_NOFILE] = 4  # last: fds 0-3 are taken, nothing more can be opened
    for which, value in limits.items():
        resource.setrlimit(which, (value, value))
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the alarm kills, wherever SQLite is
    signal.setitimer(signal.ITIMER_REAL, wall_s)


def _answer(request: dict[str, Any]) -> Iterator[bytes]:
    conn = _database()
    deadline = _Deadline(request["seconds"])
    conn.set_progress_handler(deadline.passed, PROGRESS_EVERY_OPS)
    try:
        conn.set_authorizer(_authorizer(_BUILD_ACTIONS, _BUILD_PRAGMAS))
        conn.executescript(request["schema_sql"])
    except Exception as exc:  # SQLite's errors, MemoryError, text SQLite cannot take
        yield _line({"schema_error": _complaint(exc)})
        return
    yield _line({"schema_error": None})
    conn.set_authorizer(_authorizer(_READ_ACTIONS, frozenset()))
    budget = [REPLY_LIMIT_BYTES]
    outcomes = [
        _outcome(conn, statement, request["max_rows"], deadline, budget)
        for statement in request["statements"]
    ]
    yield _line({"outcomes": outcomes})


def _database() -> sqlite3.Connection:
    """An in-memory database with every limit set before any user SQL can change them."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    if hasattr(conn, "enable_load_extension"):
        conn.enable_load_extension(False)
    for limit, value in (
        (sqlite3.SQLITE_LIMIT_ATTACHED, 0),
        (sqlite3.SQLITE_LIMIT_LENGTH, VALUE_LIMIT_BYTES),
        (sqlite3.SQLITE_LIMIT_SQL_LENGTH, STATEMENT_LIMIT_BYTES),
        (sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, LIKE_PATTERN_LIMIT_CHARS),
    ):
        conn.setlimit(limit, value)
    page_bytes = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {DATABASE_LIMIT_BYTES // page_bytes}")
    conn.execute(f"PRAGMA hard_heap_limit = {HEAP_LIMIT_BYTES}")
    conn.execute("PRAGMA temp_store = MEMORY")  # sorts and indexes never spill to files
    conn.execute("PRAGMA trusted_schema = OFF")
    return conn


def _authorizer(actions: frozenset[int], pragmas: frozenset[str]) -> Callable[..., int]:
    def decide(action: int, arg1: Any, arg2: Any, db: str | None, _source: Any) -> int:
        if db not in (None, "main"):  # the temp database, or anything attached
            return _DENY
        if action == sqlite3.SQLITE_PRAGMA:
            return _OK if str(arg1).lower() in pragmas else _DENY
        if action == sqlite3.SQLITE_FUNCTION and str(arg2).lower() in _UNSAFE_FUNCTIONS:
            return _DENY
        return _OK if action in actions else _DENY

    return decide


class _Deadline:
    """The progress handler's clock: each step (schema, then each statement) gets ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.until = time.monotonic() + seconds

    def restart(self) -> None:
        self.until = time.monotonic() + self.seconds

    def passed(self) -> int:
        return int(time.monotonic() > self.until)  # non-zero interrupts the statement


def _outcome(
    conn: sqlite3.Connection, statement: str, max_rows: int, deadline: _Deadline, budget: list[int]
) -> dict[str, Any]:
    deadline.restart()
    rows: list[list[Any]] = []
    try:
        for row in conn.execute(statement):
            budget[0] -= sum(len(v) if isinstance(v, str | bytes) else 8 for v in row) + 8
            if budget[0] < 0:
                return {"error": f"the rows are larger than {REPLY_LIMIT_BYTES >> 20} MiB"}
            rows.append([{"blob": v.hex()} if isinstance(v, bytes) else v for v in row])
            if len(rows) > max_rows:
                break
    except Exception as exc:
        return {"error": _complaint(exc)}
    return {"rows": rows}


def _complaint(exc: BaseException) -> str:
    return "out of memory" if isinstance(exc, MemoryError) else str(exc) or type(exc).__name__


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


if __name__ == "__main__":
    serve(int(sys.argv[1]))
