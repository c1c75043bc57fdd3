"""The trusted side of executions: one keeper per concurrent caller, forked by the service.

It serves its caller's requests one at a time and runs none of their code. Each request
gets fresh units, forked and isolated before the request exists by the keeper's zygotes
(copies of the keeper taken before it saw any request): the candidate's code goes to one
unit, and a function's tests (as untrusted as the candidate, whoever wrote them) go to a
second unit of their own, in a cgroup of their own. The keeper relays the tests' calls to
the candidate and the candidate's replies back, passing only exact-typed plain data, and
decides the verdict from the tests' report and what it saw of the candidate.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import os
import signal
import socket
import time
from collections.abc import Sequence
from typing import Any

from tasks_app.sandbox import cgroups, inmate, isolate, linux, tester, wire
from tasks_app.sandbox.unit import Gone, Unit
from tasks_app.sandbox.zygote import Zygote

FUNCTION_OUTPUT_LIMIT = 1 << 20  # bytes a function or its tests may print before the stop
DETAIL_CAP = 2000
EARLY_BATCH_BYTES = 32 * 1024  # a batch this small fits the socket buffer: sent before loading
MAX_EXECUTIONS = 500  # then the keeper exits and its caller starts another
TALLY_GRACE = 0.5  # seconds the tests get to report their tally once the candidate is gone


class TestsBroke(Exception):  # noqa: N818
    """The tests' unit died, overran or broke the protocol: the tests' fault, not the code's."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail

    @classmethod
    def from_gone(cls, gone: Gone) -> TestsBroke:
        if gone.status == "timeout":
            return cls("timeout", "time limit exceeded (in the tests)")
        return cls("error", f"{tester.TESTS_FAILURE} were stopped: {gone.detail}")


@dataclasses.dataclass
class Pen:
    """A zygote and the cgroup its units share, one unit at a time."""

    layout: cgroups.Layout
    name: str
    dirs: list[str]
    zygote: Zygote

    @classmethod
    def open(
        cls,
        template: isolate.Jail,
        layout: cgroups.Layout,
        name: str,
        conn: socket.socket,
        siblings: Sequence[Pen] = (),
    ) -> Pen:
        dirs: list[str] = []
        if template.layers.cgroups:
            ceiling = isolate.CEILING
            dirs = cgroups.create_unit(layout, name, ceiling.cgroup_bytes(), ceiling.max_pids)
        jail = dataclasses.replace(template, limits=isolate.CEILING, cgroup_dirs=dirs)
        others = [pen.zygote for pen in siblings]
        zygote = Zygote.start(jail, inmate.serve_request, FUNCTION_OUTPUT_LIMIT, conn, others)
        return cls(layout, name, dirs, zygote)

    def unit(self) -> Unit:
        oom_before = cgroups.oom_count(self.layout, self.name) if self.dirs else 0
        unit = self.zygote.unit(FUNCTION_OUTPUT_LIMIT)
        unit.oom_check = functools.partial(cgroups.oom_killed, self.layout, self.name, oom_before)
        return unit

    def limit(self, limits: isolate.Limits) -> None:
        cgroups.set_memory(self.layout, self.name, limits.cgroup_bytes())

    def recycle(self) -> bool:
        """Ready the emptied group for the next unit; False if it could not be emptied."""
        ceiling = isolate.CEILING
        if not self.dirs:
            return True
        return cgroups.recycle(self.layout, self.name, ceiling.cgroup_bytes(), ceiling.max_pids)


def run(conn: socket.socket, template: isolate.Jail, layout: cgroups.Layout) -> None:
    """Serve one caller's executions, one at a time, until it hangs up.

    Each execution gets a new candidate unit, forked and isolated by this keeper's zygote
    while the previous execution was still being answered, so a request only pays for its
    own code; a function check also takes the tests' unit made ready the same way (one
    that a program left unused waits for the next check). SIGTERM (the service stopping)
    ends it the same way as a hang-up: its zygotes are closed and reaped, after reaping
    the units, before the keeper exits.
    """
    if linux.IS_LINUX:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        linux.set_name("sandbox-keeper")
    signal.signal(signal.SIGTERM, linux.exit_now)
    names = cgroup_names(os.getpid())
    pens: list[Pen] = []
    try:
        for name in names:
            pens.append(Pen.open(template, layout, name, conn, pens))
        _serve_all(conn, *pens)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # leaving already: let the reaping finish
        for pen in reversed(pens):
            pen.zygote.close()


def _serve_all(conn: socket.socket, candidates: Pen, checks: Pen) -> None:
    tests: Unit | None = None
    for served in range(1, MAX_EXECUTIONS + 1):
        unit = candidates.unit()
        tests = tests or checks.unit()
        try:
            request = wire.recv(conn)
            checked = request.get("mode") == "function"
            # The tests follow a function's request at once; read before anything can fail.
            part = wire.recv(conn) if checked else {}
        except (EOFError, OSError, wire.WireError):
            unit.kill()
            tests.kill()
            return
        job = (unit, tests if checked else None)
        reply = _serve(job, request, part, candidates, checks)
        reply["last"] = served == MAX_EXECUTIONS
        with contextlib.suppress(OSError):
            wire.send(conn, reply)
        unit.kill()
        if checked:
            tests.kill()
            tests = None
            if not checks.recycle():
                return  # the group could not be emptied: no later unit may use it
        if not candidates.recycle():
            return


def cgroup_names(keeper_pid: int) -> tuple[str, str]:
    """The groups of a keeper's candidate units and of its tests' units."""
    return f"keeper-{keeper_pid}", f"keeper-{keeper_pid}-tests"


def _serve(
    units: tuple[Unit, Unit | None],
    request: dict[str, Any],
    part: dict[str, Any],
    candidates: Pen,
    checks: Pen,
) -> dict[str, Any]:
    unit, tests = units
    limits = _limits(request)
    unit.deadline = time.monotonic() + limits.timeout
    try:
        candidates.limit(limits)
        job = {k: request.get(k) for k in ("mode", "source", "entry")}
        unit.send({**job, "timeout": limits.timeout, "memory_mb": limits.memory_mb})
        if tests is None:
            return _run_program(unit, request)
        tests.deadline = unit.deadline
        checks.limit(limits)
        return _check_function(unit, tests, request, part, limits)
    except Gone as gone:
        return {"status": gone.status, "detail": gone.detail}
    finally:
        # The verdict is final: stop the units and answer; their dying is off the clock.
        unit.stop()
        if tests is not None:
            tests.stop()


def _limits(request: dict[str, Any]) -> isolate.Limits:
    return isolate.Limits(
        timeout=max(float(request.get("timeout", 5.0)), 0.01),
        memory_mb=max(int(request.get("memory_mb", 256)), 16),
    )


def _run_program(unit: Unit, request: dict[str, Any]) -> dict[str, Any]:
    output_limit = int(request.get("output_limit", 64_000))
    for captured in unit.out.values():
        captured.limit = output_limit
    unit.stdin_data = str(request.get("stdin", "")).encode()
    if not unit.stdin_data:
        unit.close_stdin()
    status, detail = "ok", ""
    try:
        unit.wait_exit()
        status, detail = _program_status(unit, unit.memory_error)
    except Gone as gone:
        status, detail = gone.status, gone.detail
    return {
        "status": status,
        "detail": detail,
        "stdout": unit.out["stdout"].text(),
        "stderr": unit.out["stderr"].text(),
        "exit_code": _exit_code(unit.exit_status),
        "truncated": any(c.overflowed for c in unit.out.values()),
    }


def _program_status(unit: Unit, memory_error: bool) -> tuple[str, str]:
    status = unit.exit_status or 0
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return "ok", ""
    if memory_error or unit.oom_check():
        return "memory_limit", "out of memory"
    if os.WIFEXITED(status):
        return "error", f"exited with status {os.WEXITSTATUS(status)}"
    return unit.death()


def _exit_code(status: int | None) -> int | None:
    if status is None:
        return None
    return os.waitstatus_to_exitcode(status)




def _check_function(
    unit: Unit,
    tests: Unit,
    request: dict[str, Any],
    part: dict[str, Any],
    limits: isolate.Limits,
) -> dict[str, Any]:
    unit.close_stdin()
    tests.close_stdin()
    job = {
        "mode": "tests",
        "tests": str(part.get("tests", "")),
        "prelude": str(part.get("prelude", "")),
        "entry": str(request["entry"]),
        "timeout": limits.timeout,
        "memory_mb": limits.memory_mb,
    }
    relay = Relay(unit, tests)
    try:
        tests.send(job)
        return relay.run()
    except TestsBroke as broke:
        return relay.result(broke.status, broke.detail)


class Relay:
    """Carries the tests' calls to the candidate and its replies back; judges the report.

    Calls known in advance (see :mod:`plan`) were sent to the candidate in one message;
    their replies are already on their way, so such a call only checks that it is the one
    planned next and takes the next reply.
    """

    def __init__(self, unit: Unit, tests: Unit) -> None:
        self.unit = unit
        self.tests = tests
        self.calls = 0
        self.planned: collections.deque[dict[str, Any]] = collections.deque()
        self.tally: dict[str, Any] | None = None

    def run(self) -> dict[str, Any]:
        # The tests load in their unit while the candidate loads in its own.
        ready = self._from_tests()
        batch = self._plan(ready)
        small = batch is not None and len(wire.dumps(batch)) <= EARLY_BATCH_BYTES
        if small:
            self.unit.post(batch)  # read by the unit once loaded; if it died, it says why next
        loaded = self.unit.wait_frame()
        if "load_error" in loaded:  # the candidate's load error wins over the tests'
            name, message = (str(part)[:DETAIL_CAP] for part in loaded["load_error"][:2])
            status = "memory_limit" if name == "MemoryError" else "error"
            return {"status": status, "detail": f"solution failed to load: {name}: {message}"}
        if loaded != {"loaded": True}:
            raise Gone("failed", "the sandbox broke the protocol")
        if "load_error" in ready:
            return self.result("error", str(ready["load_error"]))
        if batch is not None and not small:
            self.unit.send(batch)
        return self._relay()

    def _plan(self, ready: dict[str, Any]) -> dict[str, Any] | None:
        if "load_error" in ready:
            return None
        plan = ready.get("plan")
        if set(ready) != {"ready", "plan"} or not (plan is None or type(plan) is list):
            raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
        if not plan:
            return None
        self.planned.extend(_request(call) for call in plan)
        return {"batch": list(self.planned)}

    def _relay(self) -> dict[str, Any]:
        while True:
            frame = self._from_tests()
            if "done" in frame:
                self.tally = _report(frame["done"])
                return self._verdict()
            if "call" not in frame:
                raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
            try:
                reply = self._call(_request(frame["call"]))
            except Gone as gone:
                return self._after(gone)
            self._to_tests({"reply": reply})

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.planned:
            if request != self.planned.popleft():
                raise TestsBroke("error", f"{tester.TESTS_FAILURE} left their call plan")
        else:
            self.unit.send(request)
        reply = _checked(self.unit.wait_frame())
        self.calls += 1
        return reply

    def _after(self, gone: Gone) -> dict[str, Any]:
        """The candidate's execution ended mid-call: its status, with the tests' tally so far."""
        self.tests.deadline = time.monotonic() + TALLY_GRACE
        with contextlib.suppress(Gone, TestsBroke):
            self._to_tests({"gone": True})
            while (frame := self._from_tests()) and "done" not in frame:
                self._to_tests({"gone": True})  # the tests swallowed it and called again
            self.tally = _report(frame["done"])
        return self.result(gone.status, gone.detail)

    def _verdict(self) -> dict[str, Any]:
        tally = self.tally or {}
        if tally.get("raised") is not None:
            return self.result("failed", tally["raised"])
        if self.planned:
            return self.result("error", f"{tester.TESTS_FAILURE} skipped planned calls")
        if tally.get("failure") is not None:
            return self.result("failed", tally["failure"])
        if self.calls == 0:
            return self.result("error", f"{tester.TESTS_FAILURE} never called the candidate")
        return self.result("passed", "")

    def result(self, status: str, detail: str) -> dict[str, Any]:
        total = self.tally["total"] if self.tally else 0
        counted = total > 0
        return {
            "status": status,
            "detail": detail[:DETAIL_CAP],
            "tests_passed": self.tally["passes"] if self.tally and counted else None,
            "tests_total": total if counted else None,
            "calls": self.calls,
        }

    def _from_tests(self) -> dict[str, Any]:
        try:
            return self.tests.wait_frame()
        except Gone as gone:
            raise TestsBroke.from_gone(gone) from None

    def _to_tests(self, message: dict[str, Any]) -> None:
        try:
            self.tests.send(message)
        except Gone as gone:
            raise TestsBroke.from_gone(gone) from None


def _request(call: Any) -> dict[str, Any]:
    """A call as the tests sent it: exactly args and kwargs, still encoded."""
    if type(call) is not dict or set(call) != {"args", "kwargs"}:
        raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
    return call


def _checked(reply: dict[str, Any]) -> dict[str, Any]:
    """The candidate's reply, passed on only if it is a plain value or a plain exception."""
    if set(reply) == {"value"}:
        try:
            wire.decode(reply["value"])
        except wire.WireError as exc:
            raise Gone("failed", f"the candidate returned malformed data: {exc}") from None
        return reply
    if set(reply) == {"raised"} and type(reply["raised"]) is list and len(reply["raised"]) >= 2:
        name, message = (str(part)[:DETAIL_CAP] for part in reply["raised"][:2])
        if name == "MemoryError":
            raise Gone("memory_limit", "the candidate ran out of memory")
        return {"raised": [name, message]}
    if "unsupported" in reply:
        detail = str(reply["unsupported"])[:DETAIL_CAP]
        raise Gone("failed", f"the candidate returned a value that is not plain data: {detail}")
    raise Gone("failed", "the sandbox broke the protocol")


def _report(done: Any) -> dict[str, Any]:
    """The tests' account of themselves, checked for shape (its content is theirs to state)."""
    if type(done) is not dict:
        raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
    passes, total = done.get("passes"), done.get("total")
    failure, raised = done.get("failure"), done.get("raised")
    counts_ok = type(passes) is int and type(total) is int and 0 <= passes <= total
    texts_ok = all(v is None or type(v) is str for v in (failure, raised))
    if not (counts_ok and texts_ok):
        raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
    return {"passes": passes, "total": total, "failure": failure, "raised": raised}
