"""Stopping the service leaves nothing behind: every process it started is killed and reaped.

The whole tree (service, keepers, zygotes, units, whatever they forked) is taken from
/proc by parent links while it is busy, with each process's start time so that a reused
pid is not mistaken for a survivor; once stopped, none of it may exist, not even as a
zombie handed to init.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tasks_app.sandbox import check_function, run_program
from tasks_app.sandbox.client import client

ROOT = Path(__file__).resolve().parents[3]
INC_TESTS = "def check(candidate):\n    assert candidate(1) == 2\n"
THREADS_ASLEEP = 3
SLEEPER = (
    "import threading, time\n"
    f"for _ in range({THREADS_ASLEEP}):\n"
    "    threading.Thread(target=time.sleep, args=(30,)).start()\n"
    "time.sleep(30)\n"
)


def _stat(pid: int) -> tuple[str, int, str, str] | None:
    """State, parent pid, start time and name of ``pid``; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except OSError:
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), fields[19], name


def _tree(root: int) -> dict[int, str]:
    """Start time of every process descended from ``root``, ``root`` included."""
    found = {root: _stat(root)}
    grew = True
    while grew:
        grew = False
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in found:
                stat = _stat(int(entry))
                if stat is not None and stat[1] in found:
                    found[int(entry)] = stat
                    grew = True
    return {pid: stat[2] for pid, stat in found.items() if stat is not None}


def _survivors(tree: dict[int, str]) -> dict[int, tuple[str, int, str, str]]:
    alive = {pid: _stat(pid) for pid in tree}
    return {pid: stat for pid, stat in alive.items() if stat is not None and stat[2] == tree[pid]}


def _zombies_left_to_init() -> set[int]:
    zombies = set()
    for entry in os.listdir("/proc"):
        stat = _stat(int(entry)) if entry.isdigit() else None
        if stat is not None and stat[0] == "Z" and stat[1] == 1 and stat[3].startswith("sandbox"):
            zombies.add(int(entry))
    return zombies


def _threads(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[17])
    except (OSError, ValueError, IndexError):
        return 0


@pytest.fixture
def busy_tree() -> Iterator[dict[int, str]]:
    """Run a mix of executions, leave a sleeping one in flight, and yield the service's tree."""
    assert check_function("def inc(x):\n    return x + 1\n", INC_TESTS, "inc").status == "passed"
    spin = "def inc(x):\n    while True:\n        pass\n"
    assert check_function(spin, INC_TESTS, "inc", timeout=0.3).status == "timeout"
    fork = "import os\ndef inc(x):\n    os.fork()\n    return x + 1\n"
    assert check_function(fork, INC_TESTS, "inc").status == "forbidden"
    in_flight = threading.Thread(target=run_program, args=(SLEEPER,), kwargs={"timeout": 30.0})
    in_flight.start()
    service = client()._proc
    assert service is not None
    try:
        yield _tree_once_asleep(service.pid)
    finally:
        client().close()
        in_flight.join(timeout=10)
    assert not in_flight.is_alive()


def _tree_once_asleep(service: int) -> dict[int, str]:
    """The service's tree, taken once the sleeper's unit has started its threads."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        tree = _tree(service)
        units = [pid for pid, stat in _survivors(tree).items() if stat[3] == "sandbox-unit"]
        if any(_threads(pid) > THREADS_ASLEEP for pid in units):
            return tree
        time.sleep(0.01)
    raise AssertionError("the sleeper never started")


def test_it_leaves_no_process_behind_when_closed(busy_tree: dict[int, str]) -> None:
    zombies_before = _zombies_left_to_init()
    names = {stat[3] for stat in _survivors(busy_tree).values()}
    assert {"sandbox-service", "sandbox-keeper", "sandbox-zygote", "sandbox-unit"} <= names
    client().close()
    assert _survivors(busy_tree) == {}
    assert _zombies_left_to_init() - zombies_before == set()


def test_it_reaps_everything_on_sigterm_and_a_new_one_takes_over(
    busy_tree: dict[int, str],
) -> None:
    zombies_before = _zombies_left_to_init()
    service = client()._proc
    assert service is not None
    os.kill(service.pid, signal.SIGTERM)
    assert service.wait(timeout=10) == 0
    assert _survivors(busy_tree) == {}
    assert _zombies_left_to_init() - zombies_before == set()
    ok = check_function("def inc(x):\n    return x + 1\n", INC_TESTS, "inc")
    assert ok.status == "passed", ok


def test_it_reaps_everything_before_it_exits_when_its_client_goes_away() -> None:
    caller = subprocess.Popen(
        [sys.executable, "-c", CALLER, SLEEPER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert caller.stdout is not None
        service = int(caller.stdout.readline())
        tree = _tree_once_asleep(service)
    finally:
        caller.kill()
        caller.wait()
    deadline = time.monotonic() + 10.0
    while _running(service) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _running(service)
    # The service has exited (init may not have reaped it yet): the rest went before it.
    assert {pid for pid in _survivors(tree) if pid != service} == set()


CALLER = """
import sys, threading, time
from tasks_app.sandbox import run_program
from tasks_app.sandbox.client import client
threading.Thread(target=run_program, args=(sys.argv[1],), kwargs={"timeout": 30.0}).start()
while client()._proc is None:
    time.sleep(0.01)
print(client()._proc.pid, flush=True)
threading.Event().wait()
"""


def _running(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"
