"""A keeper serves one caller's executions in turn; none of them sees another's traces."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from typing import Any

from tasks_app.sandbox import cgroups, check_function, isolate, keeper, linux, run_program, wire
from tasks_app.sandbox.client import client
from tasks_app.sandbox.service import python_paths

ECHO = "def echo(x):\n    return x\n"


def test_a_reused_keeper_carries_nothing_from_the_previous_verification() -> None:
    # The tests run in a fresh unit of their own for every check: whatever one check's
    # tests changed (builtins, modules, random, files) is gone for the next one.
    dirty = (
        "import builtins, os, sys, random, csv\n"
        "builtins.leaked = 'from the first run'\n"
        "sys.modules['leaked_module'] = sys\n"
        "random.seed(1)\n"
        "open('/tmp/first', 'w').write(str(random.random()))\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
    )
    clean = (
        "import builtins, os, sys, random\n"
        "def check(candidate):\n"
        "    assert os.getpid() == 1, 'the tests are PID 1 of a fresh unit'\n"
        "    assert os.listdir('/tmp') == []\n"
        "    assert not hasattr(builtins, 'leaked')\n"
        "    assert 'leaked_module' not in sys.modules\n"
        "    assert 'csv' not in sys.modules\n"
        "    assert candidate(2) == 2\n"
    )
    assert check_function(ECHO, dirty, "echo").status == "passed"
    result = check_function(ECHO, clean, "echo")
    assert (result.status, result.detail) == ("passed", ""), result


def test_each_execution_of_a_reused_keeper_gets_a_fresh_unit_and_tmp() -> None:
    solution = (
        "import os\n"
        "seen = sorted(os.listdir('/tmp'))\n"
        "open('/tmp/mark', 'w').write('x')\n"
        "counter = [0]\n"
        "def probe(x):\n"
        "    counter[0] += 1\n"
        "    return [seen, counter[0], os.getpid()]\n"
    )
    tests = "def check(candidate):\n    assert candidate(0) == [[], 1, 1]\n"
    for _ in range(4):
        result = check_function(solution, tests, "probe")
        assert result.status == "passed", result
        program = run_program("import os\nprint(os.listdir('/tmp'), os.getpid())\n")
        assert (program.status, program.stdout) == ("ok", "[] 1\n"), program
    assert client().idle_keepers() >= 1


def test_a_keeper_whose_caller_gave_up_is_not_reused() -> None:
    slow = "def echo(x):\n    while True:\n        pass\n"
    tests = "def check(candidate):\n    assert candidate(1) == 1\n"
    assert check_function(slow, tests, "echo", timeout=0.5).status == "timeout"
    assert check_function(ECHO, tests, "echo").status == "passed"


def test_tests_compiled_once_count_afresh_for_every_solution() -> None:
    tests = "def check(candidate):\n" + "".join(
        f"    assert candidate({x}) == {x}\n" for x in range(3)
    )
    for _ in range(2):
        good = check_function(ECHO, tests, "echo")
        bad = check_function("def echo(x):\n    return 1\n", tests, "echo")
        assert (good.status, good.tests_passed, good.tests_total) == ("passed", 3, 3)
        assert (bad.status, bad.tests_passed, bad.tests_total) == ("failed", 1, 3)


def test_a_stopped_keeper_reaps_its_zygote_and_units_before_it_exits() -> None:
    # Run in a helper that is a subreaper: anything the keeper or its zygote left unreaped
    # would be handed to it, and still be its child once the keeper has been reaped.
    report_r, report_w = os.pipe()
    helper = os.fork()
    if helper == 0:
        try:
            os.close(report_r)
            os.write(report_w, json.dumps(_stop_a_keeper_as_its_subreaper()).encode())
        finally:
            os._exit(0)
    os.close(report_w)
    with os.fdopen(report_r, "rb") as fh:
        report = json.loads(fh.read() or b"{}")
    os.waitpid(helper, 0)
    assert report["zygote"] and report["units"], report  # the keeper was busy with them
    assert report["keeper_status"] == 0, report
    assert report["left"] == [], report


def _stop_a_keeper_as_its_subreaper() -> dict[str, Any]:
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
    jail = isolate.Jail(isolate.Layers(), isolate.Limits(), "/nonexistent", (), python_paths())
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            keeper.run(theirs, jail, cgroups.Layout(None, None, False))
        finally:
            os._exit(0)
    theirs.close()
    wire.send(ours, {"mode": "program", "source": "print(1)", "timeout": 2.0, "memory_mb": 64})
    assert wire.recv(ours)["status"] == "ok"
    zygote, units = _descendants_once_the_next_unit_is_ready(pid)
    os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    left = linux.children()
    linux.end_children(set(left))
    keeper_status = os.waitstatus_to_exitcode(status)
    return {"zygote": zygote, "units": units, "keeper_status": keeper_status, "left": left}


def _descendants_once_the_next_unit_is_ready(keeper_pid: int) -> tuple[int, list[int]]:
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        zygotes = _children_of(keeper_pid)
        units = _children_of(zygotes[0]) if zygotes else []
        if units:
            return zygotes[0], units
        time.sleep(0.01)
    return 0, []


def _children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(child) for child in fh.read().split()]
    except OSError:
        return []


def _load_count_tests(tag: str) -> str:
    # Counts how often the module is loaded and how often check() runs, per unit.
    return (
        "import builtins\n"
        "builtins.loads = getattr(builtins, 'loads', 0) + 1\n"
        "runs = [0]\n"
        "def check(candidate):\n"
        f"    # {tag}\n"
        "    runs[0] += 1\n"
        "    assert candidate(runs[0]) == runs[0]\n"
        "    assert builtins.loads == 1\n"
    )


def test_shared_tests_load_once_and_run_again_for_each_sample_of_the_task() -> None:
    tests = _load_count_tests("shared")
    for _ in range(5):
        result = check_function(ECHO, tests, "echo", share_tests=True)
        assert (result.status, result.tests_passed) == ("passed", 2), result
    wrong = check_function("def echo(x):\n    return -1\n", tests, "echo", share_tests=True)
    assert (wrong.status, wrong.tests_passed, wrong.tests_total) == ("failed", 1, 2)
    # check() ran a seventh time in the same unit: the module-level counter says so.
    seventh = check_function("def echo(x):\n    return 7\n", tests, "echo", share_tests=True)
    assert seventh.status == "passed", seventh


def test_unshared_or_other_tests_never_reuse_a_loaded_tests_unit() -> None:
    tests = _load_count_tests("a")
    assert check_function(ECHO, tests, "echo", share_tests=True).status == "passed"
    # The same tests without sharing: a fresh unit, so check() runs for the first time.
    assert check_function(ECHO, tests, "echo").status == "passed"
    assert check_function(ECHO, tests, "echo", share_tests=True).status == "passed"
    other = _load_count_tests("b")  # other text: never the unit loaded with "a"
    assert check_function(ECHO, other, "echo", share_tests=True).status == "passed"
    # Other limits: never the unit loaded under the old ones.
    assert check_function(ECHO, other, "echo", share_tests=True, timeout=4.0).status == "passed"


def test_a_shared_tests_unit_is_dropped_after_its_candidate_is_cut_off() -> None:
    tests = _load_count_tests("cut")
    slow = "def echo(x):\n    while True:\n        pass\n"
    assert check_function(slow, tests, "echo", share_tests=True, timeout=0.5).status == "timeout"
    # The next check starts over in a fresh unit (runs == 1 again), not mid-check.
    assert check_function(ECHO, tests, "echo", share_tests=True).status == "passed"


def test_compiled_tests_are_reused_only_for_the_same_tests_and_prelude() -> None:
    tests = "def check(candidate):\n    assert candidate(K) == 1\n"
    for _ in range(2):
        assert check_function(ECHO, tests, "echo", prelude="K = 1\n").status == "passed"
        other = check_function(ECHO, tests, "echo", prelude="K = 2\n")
        assert (other.status, other.tests_passed) == ("failed", 0), other


def test_compiled_tests_keep_the_most_recent_within_their_bounds() -> None:
    kept = keeper.CompiledTests(max_entries=2, max_chars=100)
    kept.keep(("a", ""), "A")
    kept.keep(("b", ""), "B")
    assert kept.get(("a", "")) == "A"  # now the most recently used
    kept.keep(("c", ""), "C")
    assert (kept.get(("a", "")), kept.get(("b", "")), kept.get(("c", ""))) == ("A", None, "C")
    kept.keep(("big", ""), "x" * 200)  # over the character budget: evicts all, keeps none
    assert kept.get(("big", "")) is None and kept.chars <= 100
