"""The trusted side of executions: one keeper per concurrent caller, forked by the service.

It serves its caller's requests one at a time. Each gets a fresh unit, forked and
isolated before the request exists by the keeper's zygote (a copy of the keeper taken
before it saw any test data): the code goes to the unit, the trusted part (tests and
prelude) stays here, so test data is never in memory that a sandboxed process inherited.
The tests run here, with the entry point bound to a proxy that calls the sandboxed
function over the channel; every comparison happens here. Between executions the keeper
puts back what trusted test code could have changed (builtins, imported modules, random).
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import dataclasses
import functools
import os
import random
import resource
import signal
import socket
import sys
import time
from types import CodeType
from typing import Any

from tasks_app.sandbox import cgroups, counting, inmate, isolate, linux, plan, wire
from tasks_app.sandbox.unit import Gone, Unit
from tasks_app.sandbox.zygote import Zygote

FUNCTION_OUTPUT_LIMIT = 1 << 20  # bytes a function may print before the run is stopped
DETAIL_CAP = 2000
EARLY_BATCH_BYTES = 32 * 1024  # a batch this small fits the socket buffer: sent before loading
MAX_EXECUTIONS = 500  # then the keeper exits and its caller starts another
GRACE = 1.0  # seconds the trusted side may overrun the deadline before it is killed too

# Exceptions a candidate may "raise" on the trusted side; anything else becomes CandidateError.
SAFE_EXCEPTIONS = {
    name: obj
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning)
}


class CandidateError(Exception):
    """The sandboxed function raised an exception that has no safe builtin counterpart."""


def run(conn: socket.socket, template: isolate.Jail, layout: cgroups.Layout) -> None:
    """Serve one caller's executions, one at a time, until it hangs up.

    Each execution gets a new unit, forked and isolated by this keeper's zygote while the
    previous execution was still being answered, so a request only pays for its own code.
    All of this keeper's units use one cgroup, emptied and reset between them. SIGTERM
    (the service stopping) ends it the same way as a hang-up: its zygote is closed and
    reaped, after reaping the units, before the keeper exits.
    """
    if linux.IS_LINUX:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        linux.set_name("sandbox-keeper")
    signal.signal(signal.SIGTERM, linux.exit_now)
    name = cgroup_name(os.getpid())
    dirs: list[str] = []
    if template.layers.cgroups:
        ceiling = isolate.CEILING
        dirs = cgroups.create_unit(layout, name, ceiling.cgroup_bytes(), ceiling.max_pids)
    jail = dataclasses.replace(template, limits=isolate.CEILING, cgroup_dirs=dirs)
    zygote = Zygote.start(jail, inmate.serve_request, FUNCTION_OUTPUT_LIMIT, conn)
    clean = Snapshot()
    try:
        for served in range(1, MAX_EXECUTIONS + 1):
            oom_before = cgroups.oom_count(layout, name) if dirs else 0
            unit = zygote.unit(FUNCTION_OUTPUT_LIMIT)
            unit.oom_check = functools.partial(cgroups.oom_killed, layout, name, oom_before)
            try:
                request = wire.recv(conn)
            except (EOFError, OSError, wire.WireError):
                unit.kill()
                return
            reply = _serve(conn, unit, request, layout, name)
            # The verdict is final: stop the unit and answer; its dying is off the clock.
            unit.stop()
            reply["last"] = served == MAX_EXECUTIONS
            with contextlib.suppress(OSError):
                wire.send(conn, reply)
            unit.kill()
            clean.restore()
            ceiling = isolate.CEILING
            if dirs and not cgroups.recycle(layout, name, ceiling.cgroup_bytes(), ceiling.max_pids):
                return  # the group could not be emptied: no later unit may use it
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # leaving already: let the reaping finish
        zygote.close()


def cgroup_name(keeper_pid: int) -> str:
    return f"keeper-{keeper_pid}"


class Compiled:
    """Compiled prelude and tests, by their exact text: a task's samples share them.

    Code objects are immutable and depend on nothing but the text, so keeping them
    carries nothing from one execution to the next; each still runs in a fresh namespace.
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.preludes: collections.OrderedDict[str, CodeType] = collections.OrderedDict()
        self.checks: collections.OrderedDict[str, tuple[CodeType, int, dict[int, plan.Plan]]]
        self.checks = collections.OrderedDict()

    def prelude(self, source: str) -> CodeType:
        code = self.preludes.get(source)
        if code is None:
            code = self._keep(self.preludes, source, compile(source, "<prelude>", "exec"))
        return code

    def tests(self, source: str) -> tuple[CodeType, int, dict[int, plan.Plan]]:
        """The tests' code with counted asserts, how many there are, and the call plans."""
        entry = self.checks.get(source)
        if entry is None:
            tally = counting.Tally()
            plans: dict[int, plan.Plan] = {}
            code = counting.compile_tests(source, tally, plans=plans)
            entry = self._keep(self.checks, source, (code, tally.total, plans))
        return entry

    def _keep(self, cache: collections.OrderedDict[str, Any], key: str, value: Any) -> Any:
        cache[key] = value
        if len(cache) > self.size:
            cache.popitem(last=False)
        return value


COMPILED = Compiled()


class Snapshot:
    """What trusted test code could change that a later execution would see."""

    def __init__(self) -> None:
        self.builtins = dict(vars(builtins))
        self.modules = set(sys.modules)

    def restore(self) -> None:
        namespace = vars(builtins)
        namespace.clear()
        namespace.update(self.builtins)
        for module in set(sys.modules) - self.modules:
            del sys.modules[module]
        random.seed()
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _serve(
    conn: socket.socket,
    unit: Unit,
    request: dict[str, Any],
    layout: cgroups.Layout,
    unit_name: str,
) -> dict[str, Any]:
    limits = _limits(request)
    _arm_backstops(limits.timeout)
    unit.deadline = time.monotonic() + limits.timeout
    try:
        cgroups.set_memory(layout, unit_name, limits.cgroup_bytes())
        job = {k: request.get(k) for k in ("mode", "source", "entry")}
        unit.send({**job, "timeout": limits.timeout, "memory_mb": limits.memory_mb})
        if request.get("mode") == "program":
            return _run_program(unit, request)
        return _check_function(conn, unit, request)
    except Gone as gone:
        return {"status": gone.status, "detail": gone.detail}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        unit.stop()


def _limits(request: dict[str, Any]) -> isolate.Limits:
    return isolate.Limits(
        timeout=max(float(request.get("timeout", 5.0)), 0.01),
        memory_mb=max(int(request.get("memory_mb", 256)), 16),
    )


def _arm_backstops(timeout: float) -> None:
    # A Python-level deadline interrupts trusted test code that loops in Python; the CPU
    # limit kills this process outright if it spins in C, and the unit dies with it.
    def expire(signum: int, frame: Any) -> None:
        raise Gone("timeout", "time limit exceeded")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout + 0.05)
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + timeout + GRACE) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


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


def _check_function(conn: socket.socket, unit: Unit, request: dict[str, Any]) -> dict[str, Any]:
    unit.close_stdin()
    trusted = wire.recv(conn)  # the unit was forked before this request even existed
    tests, prelude = str(trusted.get("tests", "")), str(trusted.get("prelude", ""))
    return Judge(unit, str(request["entry"])).run(tests, prelude)


class Candidate:
    """Stands in for the sandboxed function: plain data out, plain data back.

    Calls known in advance (see :mod:`plan`) were sent to the unit in one message; their
    replies are already on their way, so such a call only checks that it is the one
    planned next and takes the next reply.
    """

    def __init__(self, unit: Unit, name: str) -> None:
        self.unit = unit
        self.__name__ = name
        self.calls = 0
        self.planned: collections.deque[dict[str, Any]] = collections.deque()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            request = {"args": wire.encode(args), "kwargs": wire.encode(kwargs)}
        except (wire.WireError, ValueError) as exc:
            raise TypeError(f"cannot pass to the sandbox: {exc}") from None
        if self.planned:
            if request != self.planned.popleft():
                raise Gone("error", "sandbox failure: the tests left their call plan")
        else:
            self.unit.send(request)
        reply = self.unit.wait_frame()
        self.calls += 1
        return _unpack(reply)

    def plan(self, calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> dict[str, Any] | None:
        """The batch message for ``calls``; None if one of them cannot cross the wire."""
        requests = []
        for args, kwargs in calls:
            try:
                requests.append({"args": wire.encode(args), "kwargs": wire.encode(kwargs)})
            except (wire.WireError, ValueError):
                break  # the real call will raise TypeError here; plan only up to it
        self.planned.extend(requests)
        return {"batch": requests} if requests else None


def _unpack(reply: dict[str, Any]) -> Any:
    if "value" in reply:
        try:
            return wire.decode(reply["value"])
        except wire.WireError as exc:
            raise Gone("failed", f"the candidate returned malformed data: {exc}") from None
    if "raised" in reply:
        name, message = (str(part)[:DETAIL_CAP] for part in reply["raised"][:2])
        if name == "MemoryError":
            raise Gone("memory_limit", "the candidate ran out of memory")
        raise SAFE_EXCEPTIONS.get(name, CandidateError)(f"candidate raised {name}: {message}")
    if "unsupported" in reply:
        detail = str(reply["unsupported"])[:DETAIL_CAP]
        raise Gone("failed", f"the candidate returned a value that is not plain data: {detail}")
    raise Gone("failed", "the sandbox broke the protocol")


class Judge:
    """Runs the trusted tests against the candidate proxy and decides the verdict."""

    def __init__(self, unit: Unit, entry: str) -> None:
        self.unit = unit
        self.entry = entry
        self.tally = counting.Tally()
        self.candidate = Candidate(unit, entry)
        self.plans: dict[int, plan.Plan] = {}
        self.namespace: dict[str, Any] = {}

    def run(self, tests: str, prelude: str) -> dict[str, Any]:
        # Compiled while the unit loads the solution; a load error still wins.
        batch = None
        try:
            check = self._load_tests(tests, prelude)
        except Gone as gone:
            broken: Gone | None = gone
        else:
            broken = None
            batch = self._batch(check)
        small = batch is not None and len(wire.dumps(batch)) <= EARLY_BATCH_BYTES
        if small:
            self.unit.post(batch)  # read by the unit once loaded; if it died, it says why next
        loaded = self.unit.wait_frame()
        if "load_error" in loaded:
            name, message = (str(part)[:DETAIL_CAP] for part in loaded["load_error"][:2])
            status = "memory_limit" if name == "MemoryError" else "error"
            return {"status": status, "detail": f"solution failed to load: {name}: {message}"}
        if loaded != {"loaded": True}:
            raise Gone("failed", "the sandbox broke the protocol")
        if broken is not None:
            raise broken
        if batch is not None and not small:
            self.unit.send(batch)
        try:
            check(self.candidate)
        except Exception as exc:
            return self._result("failed", counting.describe(exc))
        except Gone as gone:
            return self._result(gone.status, gone.detail)
        if self.candidate.planned:
            return self._result("error", "sandbox failure: the tests skipped planned calls")
        return self._verdict()

    def _batch(self, check: Any) -> dict[str, Any] | None:
        code = getattr(check, "__code__", None)
        if code is None:
            return None
        found = self.plans.get(code.co_firstlineno)
        if found is None or code.co_name != "check" or not found.usable(self.namespace):
            return None
        return self.candidate.plan(found.calls)

    def _load_tests(self, tests: str, prelude: str) -> Any:
        namespace: dict[str, Any] = {"__name__": "__tests__"}
        self.namespace = namespace
        try:
            exec(COMPILED.prelude(prelude), namespace)
            namespace[self.entry] = self.candidate  # trusted helpers that call it by name
            namespace[counting.TALLY_NAME] = self.tally
            code, self.tally.total, self.plans = COMPILED.tests(tests)
            exec(code, namespace)
        except Exception as exc:
            raise Gone("error", f"sandbox failure: the tests failed to load: {exc}") from None
        if not callable(namespace.get("check")):
            raise Gone("error", "sandbox failure: the tests define no check(candidate)")
        return namespace["check"]

    def _verdict(self) -> dict[str, Any]:
        if self.tally.failures:
            return self._result("failed", self.tally.failures[0])
        if self.candidate.calls == 0:
            return self._result("error", "sandbox failure: the tests never called the candidate")
        return self._result("passed", "")

    def _result(self, status: str, detail: str) -> dict[str, Any]:
        counted = self.tally.total > 0
        return {
            "status": status,
            "detail": detail[:DETAIL_CAP],
            "tests_passed": self.tally.passes if counted else None,
            "tests_total": self.tally.total if counted else None,
            "calls": self.candidate.calls,
        }
