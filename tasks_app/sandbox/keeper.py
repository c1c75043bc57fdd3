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
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from tasks_app.sandbox import cgroups, inmate, isolate, linux, literals, tester, wire
from tasks_app.sandbox.unit import Gone, Unit
from tasks_app.sandbox.zygote import Zygote

FUNCTION_OUTPUT_LIMIT = 1 << 20  # bytes a function or its tests may print before the stop
DETAIL_CAP = 2000
EARLY_BATCH_BYTES = 32 * 1024  # a batch this small fits the socket buffer: sent before loading
MIN_MEMORY_MB = 16  # the least memory a request may ask for
MAX_EXECUTIONS = 2000  # then the keeper exits and its caller starts another (its caches go too)
TALLY_GRACE = 0.5  # seconds the tests get to report their tally once the candidate is gone


Text = tuple[str, str]  # the exact text of a check's tests and prelude
V = TypeVar("V")


class ByText(Generic[V]):
    """Values kept by the exact text of tests and prelude, the least recently used leaving
    first once there are more than ``max_entries`` or they hold more than ``max_chars``."""

    def __init__(self, max_entries: int, max_chars: int) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self.chars = 0
        self.entries: collections.OrderedDict[Text, tuple[V, int]] = collections.OrderedDict()

    def get(self, text: Text) -> V | None:
        found = self.entries.get(text)
        if found is None:
            return None
        self.entries.move_to_end(text)
        return found[0]

    def put(self, text: Text, value: V, chars: int) -> None:
        """Keep ``value`` (``chars`` long) unless the text has one already."""
        if text in self.entries:
            return
        size = len(text[0]) + len(text[1]) + chars
        self.entries[text] = (value, size)
        self.chars += size
        while len(self.entries) > self.max_entries or self.chars > self.max_chars:
            _, (_, old) = self.entries.popitem(last=False)
            self.chars -= old


class CompiledTests(ByText[str]):
    """Tests' code as fresh units offered it, by the exact text of the tests and prelude.

    A unit offers its code before it runs any of the tests (see :func:`tester.offer`), so
    an entry is what compiling that text gives, whoever sent it; the next fresh unit
    loading the same text gets it and skips the compiler. Kept in this keeper only, never
    in the zygotes that fork its units.
    """

    def __init__(self, max_entries: int = 256, max_chars: int = 32 << 20) -> None:
        super().__init__(max_entries, max_chars)

    def keep(self, text: Text, code: str) -> None:
        if len(code) <= tester.OFFER_MAX_CHARS:
            self.put(text, code, len(code))


COMPILED = CompiledTests()

ReadingKey = tuple[str, int]  # entry point, memory limit in MB


@dataclasses.dataclass
class Read:
    reading: literals.Reading
    confirmed: set[ReadingKey] = dataclasses.field(default_factory=set)


class Readings(ByText[Read]):
    """Readings of tests made only of literal asserts (see :mod:`literals`), by exact text.

    A fresh unit offers a text's reading before it runs any of the tests; it is used for an
    entry point and memory limit only once a run of those tests in their unit, with them,
    reported exactly what the reading decides for the same replies. Then later checks of
    the text are decided here, from the candidate's replies, without a tests' unit.
    """

    def __init__(self, max_entries: int = 1024, max_chars: int = 32 << 20) -> None:
        super().__init__(max_entries, max_chars)

    def confirmed(self, text: Text, key: ReadingKey) -> literals.Reading | None:
        read = self.get(text)
        return read.reading if read is not None and key in read.confirmed else None

    def offer(self, text: Text, data: Any) -> None:
        if data is None or text in self.entries:
            return
        try:
            reading = literals.parse(data)
        except ValueError:
            return
        self.put(text, Read(reading), len(wire.dumps(data)))

    def confirm(
        self, text: Text, key: ReadingKey, answers: list[dict[str, Any]], reported: dict[str, Any]
    ) -> None:
        """Use the reading for ``key`` if it decides what the tests' unit just reported."""
        read = self.get(text)
        if read is None or key in read.confirmed or len(answers) != len(read.reading.calls):
            return
        if _report(literals.decide(read.reading, answers)) == reported:
            read.confirmed.add(key)


READINGS = Readings()


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
    """A zygote and the cgroup its units share, one unit at a time.

    Only the keeper writes the group's limits, so it writes the memory limit only when a
    request asks for another one; the pid limit never changes.
    """

    layout: cgroups.Layout
    name: str
    dirs: list[str]
    zygote: Zygote
    memory_bytes: int = isolate.CEILING.cgroup_bytes()

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
        # Units are moved into the group when the keeper takes one (see unit()), not when
        # the zygote forks it: a zygote forks units ahead in batches, and the group must
        # hold one unit at a time.
        jail = dataclasses.replace(template, limits=isolate.CEILING, cgroup_dirs=[])
        others = [pen.zygote for pen in siblings]
        zygote = Zygote.start(jail, inmate.serve_request, FUNCTION_OUTPUT_LIMIT, conn, others)
        return cls(layout, name, dirs, zygote)

    def unit(self) -> Unit:
        oom_before = cgroups.oom_count(self.layout, self.name) if self.dirs else 0
        unit = self.zygote.unit(FUNCTION_OUTPUT_LIMIT)
        if self.dirs:
            try:
                # Before the unit's request is sent, so before it runs any code of it.
                cgroups.join(self.dirs, unit.pid)
            except OSError:
                unit.kill()
                raise
        unit.oom_check = functools.partial(cgroups.oom_killed, self.layout, self.name, oom_before)
        return unit

    def limit(self, limits: isolate.Limits) -> None:
        if limits.cgroup_bytes() != self.memory_bytes:
            cgroups.set_memory(self.layout, self.name, limits.cgroup_bytes())
            self.memory_bytes = limits.cgroup_bytes()

    def recycle(self) -> bool:
        """Ready the emptied group for the next unit; False if it could not be emptied.

        The next unit starts under the last request's memory limit, at least MIN_MEMORY_MB
        plus room for the interpreter and its /tmp: more than it maps before its own
        request sets the limit it runs under.
        """
        return not self.dirs or cgroups.emptied(self.layout, self.name)


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
    slot = TestsSlot(checks)
    for served in range(1, MAX_EXECUTIONS + 1):
        unit = candidates.unit()
        slot.prepare()
        try:
            request = wire.recv(conn)
            checked = request.get("mode") == "function"
            # The tests follow a function's request at once; read before anything can fail.
            part = wire.recv(conn) if checked else {}
        except (EOFError, OSError, wire.WireError):
            unit.kill()
            slot.close()
            return
        limits = _limits(request)
        reading = _confirmed_reading(request, part, limits) if checked else None
        needs_tests = checked and reading is None
        tests = slot.take(_tests_key(request, part, limits)) if needs_tests else None
        reply, reusable = _serve(unit, tests, reading, request, part, limits, candidates, checks)
        unit.stop()  # the verdict is final: answer; the units' dying is off the clock
        if tests is not None and not reusable:
            tests.unit.stop()
        reply["last"] = served == MAX_EXECUTIONS
        with contextlib.suppress(OSError):
            wire.send(conn, reply)
        unit.kill()
        if tests is not None and not slot.give_back(tests, reusable):
            return  # the group could not be emptied: no later unit may use it
        if not candidates.recycle():
            return


def cgroup_names(keeper_pid: int) -> tuple[str, str]:
    """The groups of a keeper's candidate units and of its tests' units."""
    return f"keeper-{keeper_pid}", f"keeper-{keeper_pid}-tests"


@dataclasses.dataclass
class Tests:
    """A tests' unit, the check it was loaded for, and how many checks it has served."""

    unit: Unit
    key: tuple[Any, ...] | None = None
    rounds: int = 0


class TestsSlot:
    """The keeper's one tests' unit at a time: a fresh one, or one kept loaded for reuse.

    A caller that verifies many samples of one task in a row (a training or evaluation
    batch) may ask to share the tests' unit between them: the tests are then loaded once
    and run again for each sample, for at most MAX_TESTS_ROUNDS checks with exactly the
    same tests, prelude, entry point and limits from this one caller. Anything else, and
    any check whose tests broke or whose candidate was cut off mid-call, gets a fresh unit.
    """

    def __init__(self, pen: Pen) -> None:
        self.pen = pen
        self.ready: Tests | None = None

    def prepare(self) -> None:
        if self.ready is None:
            self.ready = Tests(self.pen.unit())

    def take(self, key: tuple[Any, ...] | None) -> Tests:
        ready = self.ready
        assert ready is not None
        self.ready = None
        if ready.key is None:
            return ready
        if key is not None and ready.key == key and ready.rounds < tester.MAX_TESTS_ROUNDS:
            return ready
        ready.unit.kill()  # loaded for other tests: never reused for these
        if not self.pen.recycle():
            raise OSError("the tests' group could not be emptied")
        return Tests(self.pen.unit())

    def give_back(self, tests: Tests, reusable: bool) -> bool:
        """Keep ``tests`` for the next check if it may serve again; else end it."""
        if reusable and tests.key is not None:
            tests.rounds += 1
            self.ready = tests
            return True
        tests.unit.kill()
        return self.pen.recycle()

    def close(self) -> None:
        if self.ready is not None:
            self.ready.unit.kill()


def _text(part: dict[str, Any]) -> Text:
    return str(part.get("tests", "")), str(part.get("prelude", ""))


def _confirmed_reading(
    request: dict[str, Any], part: dict[str, Any], limits: isolate.Limits
) -> literals.Reading | None:
    return READINGS.confirmed(_text(part), (str(request.get("entry")), limits.memory_mb))


def _tests_key(
    request: dict[str, Any], part: dict[str, Any], limits: isolate.Limits
) -> tuple[Any, ...] | None:
    """What a kept tests' unit must match to serve this check; None: never share it."""
    if request.get("share_tests") is not True:
        return None
    return (part.get("tests"), part.get("prelude"), request.get("entry"), limits)


def _serve(
    unit: Unit,
    tests: Tests | None,
    reading: literals.Reading | None,
    request: dict[str, Any],
    part: dict[str, Any],
    limits: isolate.Limits,
    candidates: Pen,
    checks: Pen,
) -> tuple[dict[str, Any], bool]:
    """The reply, and whether the tests' unit may serve the same tests again."""
    unit.deadline = time.monotonic() + limits.timeout
    try:
        candidates.limit(limits)
        job = {k: request.get(k) for k in ("mode", "source", "entry")}
        unit.send({**job, "timeout": limits.timeout, "memory_mb": limits.memory_mb})
        if reading is not None:
            unit.close_stdin()
            return {**Relay(unit, None).decide(reading), "read": True}, False
        if tests is None:
            return _run_program(unit, request), False
        tests.unit.deadline = unit.deadline
        for captured in tests.unit.out.values():
            captured.data.clear()
        if tests.rounds == 0:
            checks.limit(limits)
        return _check_function(unit, tests, request, part, limits)
    except Gone as gone:
        return {"status": gone.status, "detail": gone.detail}, False


def _limits(request: dict[str, Any]) -> isolate.Limits:
    return isolate.Limits(
        timeout=max(float(request.get("timeout", 5.0)), 0.01),
        memory_mb=max(int(request.get("memory_mb", 256)), MIN_MEMORY_MB),
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
    tests: Tests,
    request: dict[str, Any],
    part: dict[str, Any],
    limits: isolate.Limits,
) -> tuple[dict[str, Any], bool]:
    unit.close_stdin()
    tests.unit.close_stdin()
    relay = Relay(unit, tests.unit)
    text = _text(part)
    try:
        if tests.rounds:
            relay.to_tests({"again": True})  # loaded already: run check() for this candidate
        else:
            tests.key = _tests_key(request, part, limits)
            compiled = COMPILED.get(text)
            job: dict[str, Any] = {
                "mode": "tests",
                "tests": text[0] if compiled is None else "",
                "prelude": text[1] if compiled is None else "",
                "entry": str(request["entry"]),
                "timeout": limits.timeout,
                "memory_mb": limits.memory_mb,
                "shared": tests.key is not None,
            }
            if compiled is not None:
                job["compiled"] = compiled
            else:
                relay.learn = functools.partial(COMPILED.keep, text)
                relay.read = functools.partial(READINGS.offer, text)
            relay.to_tests(job)
        result = relay.run()
        if relay.finished and relay.tally is not None:
            key = (str(request["entry"]), limits.memory_mb)
            READINGS.confirm(text, key, relay.answers, relay.tally)
        return result, relay.finished
    except TestsBroke as broke:
        return relay.result(broke.status, broke.detail), False


class Relay:
    """Carries the tests' calls to the candidate and its replies back; judges the report.

    Calls known in advance (see :mod:`plan`) are sent to the candidate in one message and
    their replies handed to the tests in one message; the tests' proxy checks that each
    real call is the one planned next. Other calls cross one at a time. Without a tests'
    unit (``tests`` None), a confirmed reading of the tests decides (:meth:`decide`).
    """

    def __init__(self, unit: Unit, tests: Unit | None) -> None:
        self.unit = unit
        self.tests = tests
        self.calls = 0
        self.answers: list[dict[str, Any]] = []  # the candidate's checked replies, in order
        self.tally: dict[str, Any] | None = None
        self.finished = False  # the tests ran to their report, the candidate answered throughout
        # Set when the tests' unit compiles them: its first message, sent before it runs
        # any of them, may be their code (kept for the next unit loading the same text)
        # and their reading (see literals).
        self.learn: Callable[[str], None] | None = None
        self.read: Callable[[Any], None] | None = None

    def run(self) -> dict[str, Any]:
        # The tests load in their unit while the candidate loads in its own.
        ready = self._from_tests()
        if self.learn is not None and set(ready) == {"compiled", "reading"}:
            if type(ready["compiled"]) is str:
                self.learn(ready["compiled"])
            if self.read is not None:
                self.read(ready["reading"])
            ready = self._from_tests()
        batch = self._plan(ready)
        failed = self._load(batch)
        if failed is not None:
            return failed
        if "load_error" in ready:
            return self.result("error", str(ready["load_error"]))
        if batch is not None:
            gone = self._answer_plan(len(batch["batch"]))
            if gone is not None:
                return self._after(gone)
        return self._relay()

    def decide(self, reading: literals.Reading) -> dict[str, Any]:
        """The verdict from a confirmed reading of the tests and the candidate's replies."""
        batch = {"batch": reading.calls}
        failed = self._load(batch)
        if failed is not None:
            return failed
        gone = self._collect(len(reading.calls))
        self.calls = len(self.answers)
        self.tally = _report(literals.decide(reading, self.answers))
        if gone is not None:
            return self.result(gone.status, gone.detail)
        self.finished = True
        return self._verdict()

    def _load(self, batch: dict[str, Any] | None) -> dict[str, Any] | None:
        """Wait for the candidate to load, ``batch`` sent; its load error's result, if any."""
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
        if batch is not None and not small:
            self.unit.send(batch)
        return None

    def _collect(self, count: int) -> Gone | None:
        """Read ``count`` replies into ``answers``; how the candidate ended, if it did."""
        try:
            while len(self.answers) < count:
                self.answers.append(_checked(self.unit.wait_frame()))
        except Gone as exc:
            return exc
        return None

    def _plan(self, ready: dict[str, Any]) -> dict[str, Any] | None:
        if "load_error" in ready:
            return None
        plan = ready.get("plan")
        if set(ready) != {"ready", "plan"} or not (plan is None or type(plan) is list):
            raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
        return {"batch": [_request(call) for call in plan]} if plan else None

    def _answer_plan(self, count: int) -> Gone | None:
        """The planned calls' replies, to the tests in one message; how the candidate ended."""
        before = len(self.answers)
        gone = self._collect(before + count)  # the tests get the replies before it, then hear
        replies = self.answers[before:]
        self.calls += len(replies)
        self.to_tests({"replies": replies})
        return gone

    def _relay(self) -> dict[str, Any]:
        while True:
            frame = self._from_tests()
            if "done" in frame:
                self.tally = _report(frame["done"])
                # Tests that ran out of memory or stack would only do so again.
                raised = self.tally["raised"] or ""
                self.finished = not raised.startswith(("MemoryError", "RecursionError"))
                return self._verdict()
            if "call" not in frame:
                raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
            try:
                self.unit.send(_request(frame["call"]))
                reply = _checked(self.unit.wait_frame())
            except Gone as gone:
                return self._after(gone)
            self.answers.append(reply)
            self.calls += 1
            self.to_tests({"reply": reply})

    def _after(self, gone: Gone) -> dict[str, Any]:
        """The candidate's execution ended mid-call: its status, with the tests' tally so far."""
        assert self.tests is not None
        self.tests.deadline = time.monotonic() + TALLY_GRACE
        with contextlib.suppress(Gone, TestsBroke):
            self.to_tests({"gone": True})
            while (frame := self._from_tests()) and "done" not in frame:
                self.to_tests({"gone": True})  # the tests swallowed it and called again
            self.tally = _report(frame["done"])
        return self.result(gone.status, gone.detail)

    def _verdict(self) -> dict[str, Any]:
        tally = self.tally or {}
        if tally.get("raised") is not None:
            return self.result("failed", tally["raised"])
        if tally.get("broken") is not None:
            return self.result("error", f"{tester.TESTS_FAILURE} {tally['broken']}")
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
        assert self.tests is not None
        try:
            return self.tests.wait_frame()
        except Gone as gone:
            raise TestsBroke.from_gone(gone) from None

    def to_tests(self, message: dict[str, Any]) -> None:
        assert self.tests is not None
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
    texts = {key: done.get(key) for key in ("failure", "raised", "broken")}
    counts_ok = type(passes) is int and type(total) is int and 0 <= passes <= total
    texts_ok = all(v is None or type(v) is str for v in texts.values())
    if not (counts_ok and texts_ok):
        raise TestsBroke("error", f"{tester.TESTS_FAILURE} broke the protocol")
    return {"passes": passes, "total": total, **{k: v and v[:DETAIL_CAP] for k, v in texts.items()}}
