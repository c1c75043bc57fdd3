"""What runs inside the sandbox after isolation: model code and a tiny call server.

A unit serves one request: a whole program, a candidate function (loaded, then called
on request), or a task's tests (see :mod:`tester`), which are untrusted too.

Nothing here is trusted by the other side. The keeper asks for calls and decodes the
replies strictly; a reply it did not ask for, or one that is not plain data, is a failure.
Whatever this process prints, however it exits, it cannot state a verdict.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import socket
import sys
import threading
import traceback
from typing import Any

from tasks_app.sandbox import isolate, tester, wire

CHANNEL_FD = 3
DETAIL_CAP = 2000
# Encoded up front: when it is needed, memory is what the process has run out of.
MEMORY_ERROR_FRAME = wire.dumps({"memory_error": True})


def _fresh_stdio() -> None:
    # The service's own stdio objects point at its old descriptors' buffers.
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace"
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace"
    )


def _namespace(name: str) -> dict[str, Any]:
    return {"__name__": name, "__builtins__": builtins}


def _describe(exc: BaseException) -> list[str]:
    try:
        message = str(exc)[:DETAIL_CAP]
    except BaseException:  # a hostile __str__
        message = "<unprintable>"
    return [type(exc).__name__, message]


def serve_request() -> None:
    """Wait, isolated already, for one request; then run it under its own limits."""
    _fresh_stdio()
    chan = socket.socket(fileno=CHANNEL_FD)
    request = wire.recv(chan)
    limits = isolate.Limits(timeout=request["timeout"], memory_mb=request["memory_mb"])
    shared = request["mode"] == "tests" and request.get("shared") is True
    isolate.tighten(limits, tester.MAX_TESTS_ROUNDS if shared else 1)
    if request["mode"] == "program":
        run_program(chan, str(request["source"]))
    if request["mode"] == "tests":
        source = (str(request["tests"]), str(request["prelude"]), str(request["entry"]))
        rounds = tester.MAX_TESTS_ROUNDS if shared else 1
        compiled = request.get("compiled")
        tester.serve(chan, source, limits, rounds, compiled if type(compiled) is str else None)
        _flush_exit(0)
    serve_function(chan, str(request["source"]), str(request["entry"]))


def serve_function(chan: socket.socket, source: str, entry: str) -> None:
    """Load the solution, then answer call requests until the keeper hangs up."""
    namespace = _namespace("__solution__")
    try:
        exec(compile(source, "<solution>", "exec"), namespace)
        function = namespace.get(entry)
        if not callable(function):
            raise NameError(f"no function named {entry!r}")
    except BaseException as exc:
        wire.send(chan, {"load_error": _describe(exc)})
        _flush_exit(1)
    wire.send(chan, {"loaded": True})
    while True:
        try:
            request = wire.recv(chan)
        except EOFError:
            _flush_exit(0)
        for call in request["batch"] if "batch" in request else [request]:
            reply = _call(function, call)
            wire.send(chan, reply)
            if reply.get("raised", [""])[0] == "MemoryError":
                break  # the execution ends at this reply; the rest of a batch is moot


def _call(function: Any, request: dict[str, Any]) -> dict[str, Any]:
    try:
        args = wire.decode(request["args"])
        kwargs = wire.decode(request["kwargs"])
        result = function(*args, **kwargs)
    except BaseException as exc:
        return {"raised": _describe(exc)}
    try:
        return {"value": wire.encode(result)}
    except (wire.WireError, ValueError, RecursionError) as exc:
        return {"unsupported": str(exc)[:DETAIL_CAP]}


def run_program(chan: socket.socket, source: str) -> None:
    """Run a whole program as ``__main__`` and exit with its status, as ``python FILE`` would."""
    status = 0
    namespace = _namespace("__main__")
    try:
        exec(compile(source, "<program>", "exec"), namespace)
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException as exc:
        if isinstance(exc, MemoryError):
            with contextlib.suppress(BaseException):
                chan.sendall(MEMORY_ERROR_FRAME)
            namespace.clear()  # whatever the program still holds, so the traceback can print
        traceback.print_exc()
        status = 1
    threading._shutdown()  # type: ignore[attr-defined]  # wait for non-daemon threads, like python does
    _flush_exit(status)


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _flush_exit(status: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(status)
