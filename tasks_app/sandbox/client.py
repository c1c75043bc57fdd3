"""The caller's side: start the sandbox service lazily, and keep one keeper per caller slot.

Thread-safe: a lock guards starting the service and the list of idle keepers. An
execution takes an idle keeper (or has the service fork a new one, by passing it one end
of a socket pair), talks to it directly, and gives it back once it has answered; a keeper
that failed to answer in time is dropped, never reused. The service is restarted if it
dies, replaced in a forked child (which must not share its parent's), and stopped at exit.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tasks_app.sandbox import wire

logger = logging.getLogger("tasks_app.sandbox")

PROJECT_ROOT = str(Path(__file__).resolve().parents[2])
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from tasks_app.sandbox.service import main; main(int(sys.argv[2]))"
)
GRACE = 3.0  # seconds past the deadline before the caller stops waiting for a keeper
# Seconds the service gets to stop its keepers and reap everything it started; killing it
# instead would leave its tree to init.
STOP_WAIT = 10.0


class ServiceError(RuntimeError):
    """The sandbox service could not be started or reached."""


class Client:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._caps: dict[str, Any] | None = None
        self._owner = os.getpid()
        self._idle: list[socket.socket] = []  # keepers waiting for their next execution

    def capabilities(self) -> dict[str, Any]:
        with self._lock:
            self._ensure()
            assert self._caps is not None
            return self._caps

    def execute(self, first: dict[str, Any], second: dict[str, Any] | None) -> dict[str, Any]:
        """Send the sandbox's part, then the trusted part, and wait for the verdict."""
        chan, reused = self._take()
        try:
            reply = self._exchange(chan, first, second)
        except (EOFError, ConnectionError):
            chan.close()
            if not reused:
                raise
            # An idle keeper can only have gone with its service; try once on a new one.
            chan, _ = self._open_job(), False
            try:
                reply = self._exchange(chan, first, second)
            except BaseException:
                chan.close()
                raise
        except BaseException:
            chan.close()
            raise
        if reply.pop("last", True):
            chan.close()  # the keeper retires after this one
        else:
            self._give_back(chan)
        return reply

    @staticmethod
    def _exchange(
        chan: socket.socket, first: dict[str, Any], second: dict[str, Any] | None
    ) -> dict[str, Any]:
        chan.settimeout(float(first.get("timeout", 5.0)) + GRACE)
        wire.send(chan, first)
        if second is not None:
            wire.send(chan, second)
        return wire.recv(chan)

    def _take(self) -> tuple[socket.socket, bool]:
        with self._lock:
            if self._owner != os.getpid():
                self._forget()
            if self._idle and self._proc is not None and self._proc.poll() is None:
                return self._idle.pop(), True
        return self._open_job(), False

    def _give_back(self, chan: socket.socket) -> None:
        with self._lock:
            if self._owner == os.getpid() and self._proc is not None:
                self._idle.append(chan)
                return
        chan.close()

    def idle_keepers(self) -> int:
        with self._lock:
            return len(self._idle)

    def _open_job(self) -> socket.socket:
        ours, theirs = socket.socketpair()
        try:
            with self._lock:
                for attempt in range(2):
                    self._ensure()
                    try:
                        assert self._sock is not None
                        socket.send_fds(self._sock, [b"job"], [theirs.fileno()])
                        return ours
                    except OSError:
                        if attempt:
                            raise ServiceError("the sandbox service is not answering") from None
                        self._stop()
        finally:
            theirs.close()
        raise ServiceError("unreachable")

    def _ensure(self) -> None:
        if self._owner != os.getpid():
            self._forget()
        if self._proc is not None and self._proc.poll() is None:
            return
        self._stop()
        self._start()

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [sys.executable, "-I", "-S", "-c", BOOT, PROJECT_ROOT, str(theirs.fileno())]
        # env={}: no SECRET_KEY, DATABASE_URL or token can reach the service or its forks.
        self._proc = subprocess.Popen(
            command,
            env={},
            pass_fds=[theirs.fileno()],
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
            # The directories it makes for the read-only root must be readable by nobody,
            # whatever umask the web or worker process happens to run with.
            umask=0o022,
        )
        theirs.close()
        ours.settimeout(30)
        try:
            self._caps = json.loads(ours.recv(1 << 16))
        except (OSError, ValueError) as exc:
            self._proc.kill()
            raise ServiceError(f"the sandbox service did not start: {exc}") from None
        ours.settimeout(None)
        self._sock = ours
        for warning in self._caps.get("warnings", []):
            logger.warning("sandbox.layer_missing %s", warning, extra={"warning": warning})

    def _stop(self) -> None:
        self._drop_idle()
        if self._sock is not None:
            self._sock.close()  # the service exits when its socket closes
        if self._proc is not None:
            try:
                self._proc.wait(timeout=STOP_WAIT)
            except subprocess.TimeoutExpired:
                logger.warning("sandbox.stop_timeout", extra={"pid": self._proc.pid})
                self._proc.kill()
                self._proc.wait()
        self._sock = self._proc = None

    def _forget(self) -> None:
        """In a forked child: drop the parent's service without touching it."""
        self._drop_idle()
        if self._sock is not None:
            self._sock.close()
        self._sock = self._proc = None
        self._lock = threading.Lock()
        self._owner = os.getpid()

    def _drop_idle(self) -> None:
        for chan in self._idle:
            chan.close()
        self._idle = []

    def close(self) -> None:
        if self._owner == os.getpid():
            with self._lock:
                self._stop()


_client = Client()
atexit.register(_client.close)
os.register_at_fork(after_in_child=_client._forget)


def client() -> Client:
    return _client


def elapsed(start: float) -> float:
    return round(time.perf_counter() - start, 6)
