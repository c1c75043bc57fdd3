"""`make run`'s supervisor with the real processes on the embedded default (SQLite, the
filesystem broker): a killed process comes back while the others serve, and a stop leaves
nothing behind."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from crucible.supervise import STOP_GRACE_S
from tests.crucible.test_celery_worker import base_env
from tests.web_server import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
STARTED = re.compile(r"started (\S+) \(pid (\d+)\)")
# Where each process says it is up again in the shared log.
READY = {"web": "Uvicorn running", "worker": "celery@", "serve-worker": "serve@"}


def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


class Log:
    def __init__(self, path: Path) -> None:
        self.path = path

    def text(self) -> str:
        return self.path.read_text(errors="replace")

    def pids(self, name: str) -> list[int]:
        return [int(pid) for n, pid in STARTED.findall(self.text()) if n == name]

    def ready_count(self, name: str) -> int:
        marker = READY[name]
        return sum(1 for line in self.text().splitlines() if marker in line and (
            name == "web" or line.rstrip().endswith("ready.")
        ))  # fmt: skip


@pytest.fixture
def supervised(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Log, str]]:
    env = base_env(tmp_path / "var", PYTHONUNBUFFERED="1")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    port = free_port()
    log = Log(tmp_path / "supervise.log")
    with open(log.path, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "crucible.supervise", "--port", str(port)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        yield process, log, f"http://127.0.0.1:{port}"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for name in READY:
            for pid in log.pids(name):
                if group_alive(pid):
                    os.killpg(pid, signal.SIGKILL)


def test_it_restarts_a_killed_process_and_stops_everything_on_sigterm(supervised):
    process, log, url = supervised
    for name in READY:
        wait_for(lambda n=name: log.ready_count(n) >= 1, f"{name} to start")
    wait_for(lambda: healthy(url), "/healthz")

    for name in READY:
        (pid,) = log.pids(name)[-1:]
        ready_before = log.ready_count(name)
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda n=name, p=pid: log.pids(n)[-1] != p, f"{name} back")
        assert f"{name} (pid {pid}) died with signal SIGKILL" in log.text()
        wait_for(lambda n=name, r=ready_before: log.ready_count(n) > r, f"{name} ready again")
        wait_for(lambda: healthy(url), f"/healthz after {name} was killed")
        assert process.poll() is None
        assert all(group_alive(log.pids(n)[-1]) for n in READY)

    started = [pid for name in READY for pid in log.pids(name)]
    process.send_signal(signal.SIGTERM)
    # SIGTERM, the grace period, then SIGKILL: bounded, with room for a slow machine.
    process.wait(timeout=STOP_GRACE_S + 30)
    assert process.returncode == 0
    assert not [pid for pid in started if group_alive(pid)], log.text()[-3000:]
    assert not healthy(url)
    with socket.socket() as s:  # nothing listens on the port any more
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", int(url.rsplit(":", 1)[1])))
