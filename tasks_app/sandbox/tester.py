"""What runs in the tests' own unit: the task's tests, against a proxy of the candidate.

Test code (a dataset's tests, hidden tests, a verifier's edge cases, a playground's
input) is as untrusted as the candidate: whoever wrote it, it runs in a unit of its own,
isolated exactly like the candidate's, and reaches the candidate only through the
keeper, which relays exact-typed plain data between the two units. Neither unit can
reach the other's memory, the keeper's, or anything of the platform's.

A fresh unit compiles the tests before it runs a line of them, so what it compiled is the
tests' own text, untouched by them: it hands the code to the keeper first (see
:func:`offer`), and the keeper gives it to the next fresh unit asked to load exactly the
same text, which then skips the compiler (a task's tests are verified many times over).
With the code goes the text's reading (see :mod:`literals`) when the tests are only literal
asserts: once a run of them here confirms it, the keeper decides later checks of the same
text from the candidate's replies without a tests' unit.

This process reports facts (how its counted asserts went, whether ``check`` raised); the
keeper decides the verdict from them and from what it saw of the candidate itself. The
candidate can only hand this process plain data, so it cannot forge that report.
"""

from __future__ import annotations

import ast
import base64
import binascii
import builtins
import collections
import marshal
import socket
from types import CodeType
from typing import Any, NamedTuple

from tasks_app.sandbox import counting, isolate, literals, plan, replies, wire

DETAIL_CAP = 2000
MAX_TESTS_ROUNDS = 32  # checks one shared tests' unit may serve (samples of one task in a row)
TESTS_FAILURE = "verifier failure: the tests"  # detail prefix when the tests, not the code, broke
OFFER_MAX_CHARS = 512 * 1024  # compiled tests larger than this are not handed back for reuse


class CandidateGone(BaseException):  # noqa: N818  # not an Exception: counted asserts pass it on
    """The keeper ended the candidate's execution (timeout, memory, a crash...)."""


class PlanBroken(BaseException):  # noqa: N818
    """The tests made a call other than the one planned next: their own failure."""


class Candidate:
    """Stands in for the sandboxed function: plain data out, plain data back, via the keeper.

    The calls planned from the tests' text were sent to the candidate up front; their
    replies come in one message, read at the first planned call.
    """

    def __init__(self, chan: socket.socket, name: str) -> None:
        self.chan = chan
        self.__name__ = name
        self.gone = False
        self.planned: collections.deque[dict[str, Any]] = collections.deque()
        self.replies: collections.deque[dict[str, Any]] | None = None  # None: not read yet

    def offer(self, plan: list[dict[str, Any]] | None) -> None:
        self.gone = False
        self.planned = collections.deque(plan or ())
        self.replies = None if plan else collections.deque()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.gone:
            raise CandidateGone()  # sticky: tests that swallowed it cannot call again
        try:
            request = {"args": wire.encode(args), "kwargs": wire.encode(kwargs)}
        except (wire.WireError, ValueError) as exc:
            raise TypeError(f"cannot pass to the sandbox: {exc}") from None
        if self.planned:
            if request != self.planned.popleft():
                raise PlanBroken("left their call plan")
            pending = self.settle()
            if pending:
                return replies.unpack(pending.popleft())
            return self._answer()  # cut off before this call's reply: the keeper says so
        wire.send(self.chan, {"call": request})
        return self._answer()

    def settle(self) -> collections.deque[dict[str, Any]]:
        """The planned calls' replies, read from the keeper if not read yet."""
        if self.replies is None:
            message = wire.recv(self.chan)
            self.replies = collections.deque(message["replies"])
        return self.replies

    def _answer(self) -> Any:
        answer = wire.recv(self.chan)
        if "gone" in answer:
            self.gone = True
            raise CandidateGone()
        return replies.unpack(answer["reply"])


class Compiled(NamedTuple):
    """The tests' code, ready to run: what a unit hands back so the next skips the compiler."""

    prelude: CodeType
    tests: CodeType
    total: int  # counted asserts
    plans: dict[int, plan.Plan]
    reading: dict[str, Any] | None = None  # see literals.read; only from a fresh compile


def serve(
    chan: socket.socket,
    source: tuple[str, str, str],
    limits: isolate.Limits,
    rounds: int = 1,
    compiled: str | None = None,
) -> None:
    """Load ``source`` (tests, prelude, entry point), then for each candidate: offer the
    call plan, run ``check``, report.

    ``compiled``: the code of exactly this tests and prelude, as a unit offered it (see
    :func:`offer`); without it the tests are compiled here and offered to the keeper,
    as the first message, before any of them runs.

    With ``rounds`` > 1 the keeper may ask for ``check`` again, against the next candidate
    of the same task, up to that many times; the tests' module is not loaded again.
    """
    tests, prelude, entry = source
    tally = counting.Tally()
    candidate = Candidate(chan, entry)
    try:
        code = _unpacked(compiled) if compiled is not None else _compile(tests, prelude)
        if compiled is None:
            wire.send(chan, {"compiled": offer(code), "reading": code.reading})
        check, plans, namespace = _load(code, entry, candidate, tally)
    except Exception as exc:
        wire.send(chan, {"load_error": f"{TESTS_FAILURE} failed to load: {counting.describe(exc)}"})
        return
    for served in range(1, rounds + 1):
        if served > 1:
            if wire.recv(chan) != {"again": True}:
                return
            isolate.next_round(limits)
            tally.passes = 0
            tally.failures.clear()
        plan = _batch(check, plans, namespace)
        candidate.offer(plan)
        wire.send(chan, {"ready": True, "plan": plan})
        wire.send(chan, {"done": _run(check, candidate, tally)})


def _run(check: Any, candidate: Candidate, tally: counting.Tally) -> dict[str, Any]:
    raised = broken = None
    try:
        check(candidate)
    except CandidateGone:
        pass
    except PlanBroken as exc:
        broken = str(exc)
    except Exception as exc:
        raised = counting.describe(exc)
    except BaseException as exc:  # SystemExit, KeyboardInterrupt raised by the tests
        raised = counting.describe(exc)
    if broken is None and raised is None and candidate.planned and not candidate.gone:
        broken = "skipped planned calls"
    if not candidate.gone:
        candidate.settle()  # replies the tests never asked for: read, so the channel is clear
    return {
        "passes": tally.passes,
        "total": tally.total,
        "failure": tally.failures[0][:DETAIL_CAP] if tally.failures else None,
        "raised": raised,
        "broken": broken,
    }


def _compile(tests: str, prelude: str) -> Compiled:
    prelude_code = compile(prelude, "<prelude>", "exec")
    counted = counting.Tally()
    plans: dict[int, plan.Plan] = {}
    read: list[dict[str, Any] | None] = [None]

    def reading(tree: ast.Module) -> None:
        read[0] = literals.read(tree, prelude)

    tests_code = counting.compile_tests(tests, counted, plans=plans, on_parsed=reading)
    return Compiled(prelude_code, tests_code, counted.total, plans, read[0])


def offer(code: Compiled) -> str | None:
    """``code`` as the keeper keeps it (None if too large to be worth keeping)."""
    plans = [(line, p.calls, sorted(p.builtins_used)) for line, p in code.plans.items()]
    try:
        data = marshal.dumps((code.prelude, code.tests, code.total, plans))
    except ValueError:  # a planned argument marshal cannot write, or nested too deeply
        return None
    text = base64.b64encode(data).decode("ascii")
    return text if len(text) <= OFFER_MAX_CHARS else None


def _unpacked(text: str) -> Compiled:
    try:
        prelude, tests, total, plans = marshal.loads(base64.b64decode(text, validate=True))
    except (binascii.Error, EOFError, TypeError, ValueError) as exc:
        raise ValueError(f"unreadable compiled tests: {exc}") from None
    found = {line: plan.Plan(list(calls), set(used)) for line, calls, used in plans}
    return Compiled(prelude, tests, total, found)


def _load(
    code: Compiled, entry: str, candidate: Candidate, tally: counting.Tally
) -> tuple[Any, dict[int, plan.Plan], dict[str, Any]]:
    namespace: dict[str, Any] = {"__name__": "__tests__", "__builtins__": builtins}
    exec(code.prelude, namespace)
    namespace[entry] = candidate  # helpers in the tests that call it by name
    namespace[counting.TALLY_NAME] = tally
    tally.total = code.total
    exec(code.tests, namespace)
    check = namespace.get("check")
    if not callable(check):
        raise NameError("no check(candidate) is defined")
    return check, code.plans, namespace


def _batch(
    check: Any, plans: dict[int, plan.Plan], namespace: dict[str, Any]
) -> list[dict[str, Any]] | None:
    """The planned calls (see :mod:`plan`) as wire requests, up to the first that cannot cross."""
    code = getattr(check, "__code__", None)
    if code is None:
        return None
    found = plans.get(code.co_firstlineno)
    if found is None or code.co_name != "check" or not found.usable(namespace):
        return None
    requests = []
    for args, kwargs in found.calls:
        try:
            requests.append({"args": wire.encode(args), "kwargs": wire.encode(kwargs)})
        except (wire.WireError, ValueError):
            break  # the real call will raise TypeError here; plan only up to it
    return requests or None
