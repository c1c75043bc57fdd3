"""The embedded default's processes under one supervisor: ``python -m crucible.supervise``.

`make run` starts the web server, the training/evaluation worker and the serving worker
through it. Each runs in its own process group. When one dies (a crash, an OOM kill, a
``kill -9``), the supervisor logs which one and how, and starts it again after a back-off,
while the others keep serving: a lost worker is a restart, not an outage. Ctrl-C or SIGTERM
stops them all at once: SIGTERM to every group, a bounded wait, then SIGKILL for whatever
still hangs (a Celery worker in warm shutdown waits for its tasks), so nothing is left
running or defunct.

The supervisor is also the children's subreaper (Linux): a worker's pool processes orphaned by
its death are re-parented here and reaped, instead of lingering as zombies.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

logger = logging.getLogger("crucible.supervise")

# The first restart waits this long; each quick death doubles it, up to the cap.
RESTART_BACKOFF_FIRST_S = 1.0
RESTART_BACKOFF_MAX_S = 30.0
# A process that ran this long before dying counts as healthy: its back-off starts over.
RESTART_BACKOFF_RESET_S = 60.0
# A stop gives the processes this long after SIGTERM, then kills what is left.
STOP_GRACE_S = 15.0
POLL_S = 0.2
PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Program:
    name: str
    argv: list[str]


@dataclass
class Child:
    program: Program
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restart_at: float | None = None
    backoff_s: float = RESTART_BACKOFF_FIRST_S
    restarts: int = field(default=0)


def embedded_programs(host: str, port: int) -> list[Program]:
    """What `make run` serves: the web server and the two Celery workers."""
    celery = [sys.executable, "-m", "celery", "-A", "crucible", "worker"]
    return [
        Program(
            "web", [sys.executable, "-m", "crucible.serve", "--host", host, "--port", str(port)]
        ),
        Program("worker", [*celery, "-Q", "gpu,cpu,default", "-c", "2", "-l", "INFO"]),
        Program(
            "serve-worker", [*celery, "-Q", "serve", "-c", "4", "-n", "serve@%h", "-l", "INFO"]
        ),
    ]


def describe(status: int) -> str:
    """A wait status in words: ``exit code 1`` or ``signal SIGKILL``."""
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def become_subreaper() -> None:
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        logger.warning("supervise: cannot become subreaper (errno %s)", ctypes.get_errno())


def reaped() -> Iterator[tuple[int, int]]:
    """(pid, wait status) of every child that has ended, without blocking."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        yield pid, status


def signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


class Supervisor:
    def __init__(self, programs: list[Program]) -> None:
        self.children = [Child(program) for program in programs]
        self.stopping = False

    def start(self, child: Child) -> None:
        child.process = subprocess.Popen(child.program.argv, start_new_session=True)
        child.started_at = time.monotonic()
        child.restart_at = None
        logger.info("supervise: started %s (pid %d)", child.program.name, child.process.pid)

    def by_pid(self, pid: int) -> Child | None:
        for child in self.children:
            if child.process is not None and child.process.pid == pid:
                return child
        return None

    def reap(self) -> None:
        """Collect every exited child: ours, and orphans re-parented to us."""
        for pid, status in reaped():
            child = self.by_pid(pid)
            if child is not None:
                self.exited(child, status)

    def exited(self, child: Child, status: int) -> None:
        assert child.process is not None
        child.process.returncode = os.waitstatus_to_exitcode(status)
        # Its pool processes may still run in its group: they go with it.
        signal_group(child.process.pid, signal.SIGKILL)
        if self.stopping:
            return
        ran_s = time.monotonic() - child.started_at
        if ran_s >= RESTART_BACKOFF_RESET_S:
            child.backoff_s = RESTART_BACKOFF_FIRST_S
        child.restart_at = time.monotonic() + child.backoff_s
        child.restarts += 1
        logger.warning(
            "supervise: %s (pid %d) died with %s after %.0f s; restarting in %.0f s (restart %d)",
            child.program.name, child.process.pid, describe(status), ran_s, child.backoff_s,
            child.restarts,
        )  # fmt: skip
        child.backoff_s = min(child.backoff_s * 2, RESTART_BACKOFF_MAX_S)

    def restart_due(self) -> None:
        now = time.monotonic()
        for child in self.children:
            if child.restart_at is not None and now >= child.restart_at:
                self.start(child)

    def running(self) -> list[Child]:
        return [c for c in self.children if c.process is not None and c.process.returncode is None]

    def stop(self) -> None:
        """SIGTERM to every group, wait up to ``STOP_GRACE_S``, SIGKILL what is left."""
        self.stopping = True
        for child in self.children:
            if child.process is not None:
                signal_group(child.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while self.running() and time.monotonic() < deadline:
            self.reap()
            time.sleep(POLL_S)
        for child in self.running():
            assert child.process is not None
            logger.warning(
                "supervise: %s did not stop in %.0f s; killing it", child.program.name, STOP_GRACE_S
            )
            signal_group(child.process.pid, signal.SIGKILL)
        for child in self.children:
            if child.process is not None:
                child.process.wait()
                signal_group(child.process.pid, signal.SIGKILL)
        self.reap_orphans(time.monotonic() + STOP_GRACE_S)
        logger.info("supervise: all stopped")

    def reap_orphans(self, deadline: float) -> None:
        """Wait, until ``deadline``, for the killed groups' orphans re-parented to us."""
        while time.monotonic() < deadline:
            self.reap()
            try:  # any child left, exited or not?
                os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            time.sleep(POLL_S)

    def serve(self) -> None:
        for child in self.children:
            self.start(child)
        while not self.stopping:
            self.reap()
            self.restart_due()
            time.sleep(POLL_S)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m crucible.supervise", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    become_subreaper()
    supervisor = Supervisor(embedded_programs(args.host, args.port))

    def on_stop(signum: int, frame: object) -> None:
        logger.info("supervise: %s received; stopping all", signal.Signals(signum).name)
        supervisor.stopping = True

    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)
    supervisor.serve()
    supervisor.stop()


if __name__ == "__main__":
    main()
