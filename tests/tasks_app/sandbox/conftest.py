"""Fixtures for the sandbox tests: nothing the sandbox started may outlive a test."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from tasks_app.sandbox import isolate, zygote
from tasks_app.sandbox.client import client

# Each of an idle keeper's two zygotes (candidates', tests') forks units in batches: the
# next unit, taken by the keeper, and the rest of its batch.
UNITS_PER_IDLE_KEEPER = 2 * zygote.BATCH


def sandboxed_pids() -> list[int]:
    """Processes running as the sandbox's unprivileged uid, except the units kept ready.

    Each idle keeper holds pre-forked units (the next candidate's and tests' units and
    the rest of their zygotes' batches), asleep with a single thread, waiting for their
    request; anything an execution left behind would be running, or have more threads,
    or exceed UNITS_PER_IDLE_KEEPER per idle keeper, or be a zombie nobody reaped.
    Units of another process's live sandbox service (a concurrent test run on the same
    host) are not ours; an orphan that no live service holds counts wherever it came from.
    """
    pids = [p for p in _uid_pids() if not _held_by_other_service(p)]
    found = [p for p in pids if not _idle(p)]
    idle = [p for p in pids if _idle(p)]
    return found + (idle if len(idle) > UNITS_PER_IDLE_KEEPER * client().idle_keepers() else [])


def _held_by_other_service(pid: int) -> bool:
    proc = client()._proc
    holder = _service_of(pid)
    return holder is not None and holder != (proc.pid if proc is not None else None)


def _service_of(pid: int) -> int | None:
    """The service a unit descends from: its topmost ancestor running the service's code."""
    holder = None
    if _state(pid) == "Z":
        pid = _ppid(pid)  # a zombie has no command line left; it belongs to whoever reaps it
    while pid > 1 and _runs_service(pid):
        holder, pid = pid, _ppid(pid)  # units and keepers are forks of the service
    if pid < 0:
        return -1  # an ancestor exited mid-walk: in transit to its subreaper, look again
    orphaned = pid <= 1 or holder in _uid_pids()  # reparented to init: no service holds it
    return None if orphaned else holder


def _runs_service(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"tasks_app.sandbox.service" in fh.read()
    except OSError:
        return False


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


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
    while (left := sandboxed_pids()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []
