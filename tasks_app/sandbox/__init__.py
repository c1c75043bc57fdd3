"""Sandbox for model-written code: the public API.

Pure Python, never imports Django. Model code runs in an isolated, pre-forked process.
Test code (dataset tests, hidden tests, edge cases, a playground's input) is just as
untrusted: for function tasks the tests run in a second isolated process of their own,
with the entry point bound to a proxy whose calls the trusted keeper relays to the
sandboxed function, passing only exact-typed plain data both ways. The tests' process,
not the candidate's, reports how the asserts went, and the keeper decides the verdict.
An exit status, a printed marker or the absence of an exception is never evidence of a
pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tasks_app.sandbox.client import GRACE, ServiceError, client
from tasks_app.sandbox.tester import TESTS_FAILURE

FUNCTION_STATUSES = (
    "passed",
    "failed",
    "error",
    "timeout",
    "memory_limit",
    "output_limit",
    "forbidden",
)
PROGRAM_STATUSES = ("ok", "error", "timeout", "memory_limit", "output_limit", "forbidden")


@dataclass
class SandboxResult:
    status: str  # one of FUNCTION_STATUSES
    detail: str  # human-readable reason (assertion message, exception type, ...), capped
    seconds: float
    tests_passed: int | None = None  # counted top-level asserts of check() that held
    tests_total: int | None = None
    sandbox_error: bool = False  # the sandbox itself failed; not the solution's fault
    verifier_error: bool = False  # the tests broke (failed to load, crashed, overran)
    # Decided from a confirmed reading of literal-assert tests, without a tests' unit.
    read: bool = False


@dataclass
class ProgramResult:
    status: str  # one of PROGRAM_STATUSES
    stdout: str
    stderr: str
    exit_code: int | None
    seconds: float
    truncated: bool
    detail: str = ""


def check_function(
    solution: str,
    tests: str,
    entry_point: str,
    *,
    prelude: str = "",
    timeout: float = 5.0,
    memory_mb: int = 256,
    share_tests: bool = False,
) -> SandboxResult:
    """Run ``tests`` (defining ``check(candidate)``) against the sandboxed ``entry_point``.

    ``share_tests``: this caller checks many samples of one task in a row (a training or
    evaluation batch), so the tests' unit may be loaded once and serve the next checks
    with exactly the same tests from this caller (never another caller's). Tests that
    keep state between calls of ``check`` should not be shared.
    """
    start = time.perf_counter()
    first = {
        "mode": "function",
        "source": solution,
        "entry": entry_point,
        "timeout": timeout,
        "memory_mb": memory_mb,
        "share_tests": share_tests,
    }
    reply = _execute(first, {"tests": tests, "prelude": prelude}, timeout, start)
    detail = str(reply.get("detail", ""))
    return SandboxResult(
        status=str(reply["status"]),
        detail=detail,
        seconds=round(time.perf_counter() - start, 6),
        tests_passed=reply.get("tests_passed"),
        tests_total=reply.get("tests_total"),
        sandbox_error=detail.startswith("sandbox failure"),
        verifier_error=detail.startswith(TESTS_FAILURE),
        read=reply.get("read") is True,
    )


def run_program(
    source: str,
    *,
    stdin: str = "",
    timeout: float = 5.0,
    memory_mb: int = 256,
    output_limit: int = 64_000,
) -> ProgramResult:
    """Run a whole program in the sandbox; its status and capped output come back."""
    start = time.perf_counter()
    first = {
        "mode": "program",
        "source": source,
        "stdin": stdin,
        "timeout": timeout,
        "memory_mb": memory_mb,
        "output_limit": output_limit,
    }
    reply = _execute(first, None, timeout, start)
    return ProgramResult(
        status=str(reply["status"]),
        stdout=str(reply.get("stdout", "")),
        stderr=str(reply.get("stderr", "")),
        exit_code=reply.get("exit_code"),
        seconds=round(time.perf_counter() - start, 6),
        truncated=bool(reply.get("truncated", False)),
        detail=str(reply.get("detail", "")),
    )


def capabilities() -> dict[str, Any]:
    """Which isolation layers are active on this host, with a warning per missing one."""
    return dict(client().capabilities())


def _execute(
    first: dict[str, Any], second: dict[str, Any] | None, timeout: float, start: float
) -> dict[str, Any]:
    try:
        return client().execute(first, second)
    except TimeoutError:
        return {"status": "timeout", "detail": "time limit exceeded (the keeper did not answer)"}
    except (EOFError, OSError, ServiceError) as exc:
        late = time.perf_counter() - start >= timeout
        if late:
            return {"status": "timeout", "detail": "time limit exceeded"}
        return {"status": "error", "detail": f"sandbox failure: {type(exc).__name__}: {exc}"}


__all__ = [
    "GRACE",
    "ProgramResult",
    "SandboxResult",
    "capabilities",
    "check_function",
    "run_program",
]
