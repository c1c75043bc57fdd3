"""Recycled unit cgroups start clean: no files, no threads, no memory-limit history.

A keeper runs all its units in one cgroup, emptied and reset between them, so every
execution after a caller's first runs in a cgroup that an earlier one used.
"""

from __future__ import annotations

import os

import pytest

from tasks_app.sandbox import capabilities, cgroups, check_function, run_program

ROUNDS = 5

pytestmark = pytest.mark.skipif(
    not capabilities()["cgroups"], reason="needs memory and pid cgroups (root)"
)

THREADS = (
    "import threading, time\n"
    "for _ in range(20):\n"
    "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    "print(threading.active_count(), sorted(__import__('os').listdir('/tmp')))\n"
    "open('/tmp/mark', 'w').write('x')\n"
)


def test_a_recycled_unit_has_an_empty_tmp_and_no_threads_of_the_last_run() -> None:
    # Twenty threads each time: leftovers of an earlier run would hit pids.max (32).
    for _ in range(ROUNDS):
        result = run_program(THREADS, timeout=2.0)
        assert (result.status, result.stdout) == ("ok", "21 []\n"), result


def test_a_recycled_unit_still_enforces_its_memory_limit() -> None:
    bomb = "def inc(x):\n    return len(bytearray(10 ** 10))\n"
    tests = "def check(candidate):\n    assert candidate(1) == 2\n"
    for _ in range(ROUNDS):
        assert check_function(bomb, tests, "inc", memory_mb=64).status == "memory_limit"
        ok = check_function("def inc(x):\n    return x + 1\n", tests, "inc", memory_mb=64)
        assert ok.status == "passed"


def test_a_memory_limit_hit_is_not_blamed_on_the_next_run() -> None:
    grow = "def inc(x):\n    chunks = []\n    while True:\n        chunks.append(' ' * 10 ** 6)\n"
    tests = "def check(candidate):\n    assert candidate(1) == 2\n"
    for _ in range(ROUNDS):
        assert check_function(grow, tests, "inc", memory_mb=64).status == "memory_limit"
        failing = run_program("import sys\nsys.exit(3)\n")
        assert (failing.status, failing.exit_code) == ("error", 3), failing


def test_recycling_refuses_a_group_that_still_has_members() -> None:
    layout = cgroups.discover(f"recycle-test-{os.getpid()}")
    if not (layout.memory and layout.pids):
        pytest.skip("no cgroups here")
    name = "unit-test"
    dirs = cgroups.create_unit(layout, name, 64 << 20, 8)
    joined_r, joined_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        cgroups.join(dirs)
        os.write(joined_w, b"j")
        os.pause()
        os._exit(0)
    try:
        assert os.read(joined_r, 1) == b"j"
        assert cgroups.recycle(layout, name, 64 << 20, 8) is False
        assert not any(os.path.exists(d) for d in dirs)  # killed and removed
    finally:
        os.close(joined_r)
        os.close(joined_w)
        os.waitpid(pid, 0)
        for path in layout.dirs:
            cgroups.destroy_unit(cgroups.unit_dirs(layout, name))
            os.rmdir(path)
