"""One sandboxed process as seen from the trusted side: start, talk, watch, kill.

The unit is PID 1 of its own PID namespace, so killing it kills everything it could have
started; the wall deadline kills it without waiting for its output to close.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tasks_app.sandbox import isolate, linux, wire

SETUP_FAILED = 70  # exit status of a unit whose isolation could not be applied
READ_CHUNK = 1 << 16


class Gone(BaseException):  # noqa: N818  # a BaseException so test code cannot swallow it
    """The execution is over: the unit died, timed out or broke the protocol."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass
class Captured:
    """A capped output stream."""

    limit: int
    data: bytearray
    overflowed: bool = False

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        self.data += chunk[: max(room, 0)]
        self.overflowed = self.overflowed or len(chunk) > room

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


class Unit:
    def __init__(
        self,
        pid: int,
        chan: socket.socket,
        pipes: dict[str, int],
        deadline: float,
        pidfd: int | None = None,
    ):
        self.pid = pid
        self.chan = chan
        self.pipes = pipes  # "stdin" (write end), "stdout", "stderr" (read ends)
        self.deadline = deadline
        if pidfd is None and hasattr(os, "pidfd_open"):
            pidfd = os.pidfd_open(pid)
        self.pidfd = pidfd
        # How the exit status is learnt: waitpid by default (we are the parent), or a
        # report from the process that is (see zygote.py); ``block`` False may give None.
        self.status_of: Callable[[bool], int | None] = self._waitpid
        self.frames = wire.FrameBuffer()
        self.exit_status: int | None = None
        self.stopped = False
        self.out: dict[str, Captured] = {}
        self.stdin_data = b""
        self.oom_check: Callable[[], bool] = lambda: False
        self.memory_error = False  # a program reported a top-level MemoryError

    @classmethod
    def start(
        cls, jail: isolate.Jail, body: Callable[[], None], split_stderr: bool, output_limit: int
    ) -> Unit:
        """Fork the sandboxed process; ``body`` runs in it once every layer is in place."""
        ours, theirs = socket.socketpair()
        stdin_r, stdin_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe() if split_stderr else (out_r, out_w)
        if jail.layers.pid:
            linux.unshare(linux.CLONE_NEWPID)  # applies to the next child only
        deadline = time.monotonic() + jail.limits.timeout
        pid = linux.fork_bare()  # forked by a zygote, which runs one thread
        if pid == 0:
            child(jail, body, (stdin_r, out_w, err_w), theirs.detach())
        theirs.close()
        for fd in {stdin_r, out_w, err_w}:
            os.close(fd)
        pipes = {"stdin": stdin_w, "stdout": out_r}
        if split_stderr:
            pipes["stderr"] = err_r
        unit = cls(pid, ours, pipes, deadline)
        unit.out = {name: unit.captured(output_limit) for name in pipes if name != "stdin"}
        return unit

    def captured(self, limit: int) -> Captured:
        return Captured(limit, bytearray())

    def release(self) -> None:
        """Close our ends without touching the unit: another process now holds them."""
        for fd in [*self.pipes.values()] + ([self.pidfd] if self.pidfd is not None else []):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pipes = {}
        self.pidfd = None
        self.chan.close()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def send(self, message: Any) -> None:
        self.chan.settimeout(max(self.remaining(), 0.001))
        try:
            wire.send(self.chan, message)
        except TimeoutError:
            raise Gone("timeout", "time limit exceeded") from None
        except OSError:
            self.wait_frame()  # the unit is dying; report why
            raise Gone("error", "the sandbox stopped reading") from None

    def post(self, message: Any) -> bool:
        """Send without waiting on the unit's fate; False if it is no longer reading."""
        self.chan.settimeout(max(self.remaining(), 0.001))
        try:
            wire.send(self.chan, message)
        except OSError:
            return False
        return True

    def wait_frame(self) -> dict[str, Any]:
        """The next message from the unit, watching its output, exit and the deadline."""
        while True:
            frame = self._next_frame()
            if frame is not None:
                return frame
            if self.exit_status is not None:
                raise Gone(*self.death())
            self._pump(self.remaining())

    def wait_exit(self) -> None:
        """Feed stdin, drain output and wait for the unit to exit (programs).

        Frames are consumed as they come, so a program spamming its channel cannot grow
        our buffer; the only one that means anything is a MemoryError report.
        """
        while self.exit_status is None:
            self._pump(self.remaining())
            self._note_frames()
        self._note_frames()

    def _note_frames(self) -> None:
        with contextlib.suppress(wire.WireError, Gone):
            while (frame := self._next_frame()) is not None:
                self.memory_error = self.memory_error or frame == {"memory_error": True}

    def _next_frame(self) -> dict[str, Any] | None:
        try:
            frame = self.frames.next()
        except wire.WireError as exc:
            raise Gone("failed", f"the sandbox broke the protocol: {exc}") from None
        if frame is not None and type(frame) is not dict:
            raise Gone("failed", "the sandbox broke the protocol")
        return frame

    def _pump(self, timeout: float) -> None:
        if timeout <= 0:
            raise Gone("timeout", "time limit exceeded")
        readers = [fd for name, fd in self.pipes.items() if name != "stdin"]
        readers += [self.chan.fileno()] + ([self.pidfd] if self.pidfd is not None else [])
        writers = [self.pipes["stdin"]] if "stdin" in self.pipes and self.stdin_data else []
        readable, writable, _ = select.select(readers, writers, [], min(timeout, 0.05))
        for fd in readable:
            self._read(fd)
        if writable:
            self._feed_stdin()
        if self.pidfd is None or self.pidfd in readable:
            self._reap(block=self.pidfd is not None)

    def _read(self, fd: int) -> None:
        if fd == self.pidfd:
            return
        try:
            chunk = os.read(fd, READ_CHUNK)
        except OSError:
            chunk = b""
        if fd == self.chan.fileno():
            self.frames.feed(chunk)
            return
        for name, captured in self.out.items():
            if self.pipes.get(name) == fd:
                captured.add(chunk)
                if captured.overflowed:
                    raise Gone("output_limit", f"{name} exceeded {captured.limit} bytes")

    def _feed_stdin(self) -> None:
        try:
            written = os.write(self.pipes["stdin"], self.stdin_data[:READ_CHUNK])
        except OSError:
            written = len(self.stdin_data)
        self.stdin_data = self.stdin_data[written:]
        if not self.stdin_data:
            self.close_stdin()

    def close_stdin(self) -> None:
        fd = self.pipes.pop("stdin", None)
        if fd is not None:
            os.close(fd)

    def _reap(self, block: bool) -> None:
        status = self.status_of(block)
        if status is None:
            return
        self.exit_status = status
        self._drain_after_exit()

    def _waitpid(self, block: bool) -> int | None:
        pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        return status if pid else None

    def _drain_after_exit(self) -> None:
        # Every writer was in the unit's PID namespace, which died with it: no read can block.
        fds = [fd for name, fd in self.pipes.items() if name != "stdin"] + [self.chan.fileno()]
        for fd in fds:
            os.set_blocking(fd, False)
            with contextlib.suppress(OSError):
                while chunk := os.read(fd, READ_CHUNK):
                    if fd == self.chan.fileno():
                        self.frames.feed(chunk)
                    else:
                        self._capture_quietly(fd, chunk)

    def _capture_quietly(self, fd: int, chunk: bytes) -> None:
        for name, captured in self.out.items():
            if self.pipes.get(name) == fd:
                captured.add(chunk)

    def death(self) -> tuple[str, str]:
        """Status and detail for a unit that exited on its own."""
        status = self.exit_status or 0
        if os.WIFSIGNALED(status):
            signum = os.WTERMSIG(status)
            if signum == signal.SIGSYS:
                return "forbidden", "killed by seccomp: a forbidden system call"
            if signum == signal.SIGXCPU:
                return "timeout", "CPU time limit exceeded"
            if signum == signal.SIGKILL and self.oom_check():
                return "memory_limit", "killed by the memory limit"
            if signum == signal.SIGKILL:
                return "timeout", "killed by the CPU time limit"
            return "error", f"crashed with {signal.Signals(signum).name}"
        code = os.WEXITSTATUS(status)
        if code == SETUP_FAILED:
            return "error", "sandbox failure: isolation could not be applied"
        return "error", f"exited with status {code} before the tests finished"

    def stop(self) -> None:
        """Send the kill without waiting: the dying is done by the unit, not by us."""
        if self.exit_status is None and not self.stopped:
            with contextlib.suppress(ProcessLookupError):
                if self.pidfd is not None:
                    signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
                else:
                    os.kill(self.pid, signal.SIGKILL)
            self.stopped = True

    def kill(self) -> None:
        """Kill the unit, wait for it (and so its PID namespace) to be gone, close its fds."""
        self.stop()
        if self.exit_status is None:
            self.exit_status = self.status_of(True)
        for fd in [*self.pipes.values()] + ([self.pidfd] if self.pidfd is not None else []):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pipes = {}
        self.chan.close()


def child(
    jail: isolate.Jail, body: Callable[[], None], stdio: tuple[int, int, int], chan: int
) -> None:
    """The forked process: never returns."""
    try:
        random.seed()  # not inherited: each unit draws its own numbers
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        if linux.IS_LINUX:
            linux.set_name("sandbox-unit")
        isolate.enter(jail, stdio, chan)
    except BaseException:
        os._exit(SETUP_FAILED)
    try:
        body()
    finally:
        os._exit(1)
