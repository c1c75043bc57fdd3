"""Fixtures for the sandbox tests: nothing the sandbox started may outlive a test."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from tasks_app.sandbox import isolate


def sandboxed_pids() -> list[int]:
    """Processes running as the sandbox's unprivileged uid."""
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
    deadline = time.monotonic() + 2.0
    while sandboxed_pids() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandboxed_pids() == []
