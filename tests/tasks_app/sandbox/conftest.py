"""Fixtures for the sandbox tests: nothing the sandbox started may outlive a test."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from tasks_app.sandbox import isolate, service


def sandboxed_pids() -> list[int]:
    """Processes running as the sandbox's unprivileged uid, except the ready pool.

    A pre-forked unit waiting for its request is asleep with a single thread; anything
    an execution left behind would be running, or have more threads, or exceed the pool.
    """
    found = [p for p in _uid_pids() if not _idle(p) and _state(p) != "Z"]  # zombies hold nothing
    idle = [p for p in _uid_pids() if _idle(p)]
    return found + (idle if len(idle) > service.POOL_SIZE else [])


def _idle(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            fields = dict(line.split(":", 1) for line in fh if ":" in line)
    except OSError:
        return True  # gone
    return fields["State"].split()[0] == "S" and fields["Threads"].strip() == "1"


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _uid_pids() -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as fh:
                uids = next(line for line in fh if line.startswith("Uid:")).split()[1:]
        except (OSError, StopIteration):
            continue
        if str(isolate.UNPRIVILEGED_UID) in uids:
            pids.append(int(entry))
    return pids


@pytest.fixture(autouse=True)
def nothing_left_running() -> Iterator[None]:
    yield
    deadline = time.monotonic() + 5.0  # pool refills may still be setting up
    while sandboxed_pids() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandboxed_pids() == []
