"""What runs in the tests' own unit: the task's tests, against a proxy of the candidate.

Test code (a dataset's tests, hidden tests, a verifier's edge cases, a playground's
input) is as untrusted as the candidate: whoever wrote it, it runs in a unit of its own,
isolated exactly like the candidate's, and reaches the candidate only through the
keeper, which relays exact-typed plain data between the two units. Neither unit can
reach the other's memory, the keeper's, or anything of the platform's.

This process reports facts (how its counted asserts went, whether ``check`` raised); the
keeper decides the verdict from them and from what it saw of the candidate itself. The
candidate can only hand this process plain data, so it cannot forge that report.
"""

from __future__ import annotations

import builtins
import socket
from typing import Any

from tasks_app.sandbox import counting, plan, wire

DETAIL_CAP = 2000
TESTS_FAILURE = "verifier failure: the tests"  # detail prefix when the tests, not the code, broke

# Exceptions a candidate may "raise" here; anything else becomes CandidateError.
SAFE_EXCEPTIONS = {
    name: obj
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning)
}


class CandidateError(Exception):
    """The sandboxed function raised an exception that has no safe builtin counterpart."""


class CandidateGone(BaseException):  # noqa: N818  # not an Exception: counted asserts pass it on
    """The keeper ended the candidate's execution (timeout, memory, a crash...)."""


class Candidate:
    """Stands in for the sandboxed function: plain data out, plain data back, via the keeper."""

    def __init__(self, chan: socket.socket, name: str) -> None:
        self.chan = chan
        self.__name__ = name
        self.gone = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.gone:
            raise CandidateGone()  # sticky: tests that swallowed it cannot call again
        try:
            request = {"args": wire.encode(args), "kwargs": wire.encode(kwargs)}
        except (wire.WireError, ValueError) as exc:
            raise TypeError(f"cannot pass to the sandbox: {exc}") from None
        wire.send(self.chan, {"call": request})
        answer = wire.recv(self.chan)
        if "gone" in answer:
            self.gone = True
            raise CandidateGone()
        return _unpack(answer["reply"])


def _unpack(reply: dict[str, Any]) -> Any:
    # The keeper already turned a MemoryError, an unsupported value or a broken reply into
    # the end of the execution; what arrives here is a value or a plain exception.
    if "value" in reply:
        return wire.decode(reply["value"])
    name, message = (str(part)[:DETAIL_CAP] for part in reply["raised"][:2])
    raise SAFE_EXCEPTIONS.get(name, CandidateError)(f"candidate raised {name}: {message}")


def serve(chan: socket.socket, tests: str, prelude: str, entry: str) -> None:
    """Load the tests, offer their call plan, run ``check(candidate)``, report the tally."""
    tally = counting.Tally()
    candidate = Candidate(chan, entry)
    try:
        check, batch = _load(tests, prelude, entry, candidate, tally)
    except Exception as exc:
        wire.send(chan, {"load_error": f"{TESTS_FAILURE} failed to load: {counting.describe(exc)}"})
        return
    wire.send(chan, {"ready": True, "plan": batch})
    raised = None
    try:
        check(candidate)
    except CandidateGone:
        pass
    except Exception as exc:
        raised = counting.describe(exc)
    except BaseException as exc:  # SystemExit, KeyboardInterrupt raised by the tests
        raised = counting.describe(exc)
    report = {
        "passes": tally.passes,
        "total": tally.total,
        "failure": tally.failures[0][:DETAIL_CAP] if tally.failures else None,
        "raised": raised,
    }
    wire.send(chan, {"done": report})


def _load(
    tests: str, prelude: str, entry: str, candidate: Candidate, tally: counting.Tally
) -> tuple[Any, list[dict[str, Any]] | None]:
    namespace: dict[str, Any] = {"__name__": "__tests__", "__builtins__": builtins}
    exec(compile(prelude, "<prelude>", "exec"), namespace)
    namespace[entry] = candidate  # helpers in the tests that call it by name
    namespace[counting.TALLY_NAME] = tally
    plans: dict[int, plan.Plan] = {}
    code = counting.compile_tests(tests, tally, plans=plans)
    exec(code, namespace)
    check = namespace.get("check")
    if not callable(check):
        raise NameError("no check(candidate) is defined")
    return check, _batch(check, plans, namespace)


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
