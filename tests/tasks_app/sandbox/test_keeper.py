"""A keeper serves one caller's executions in turn; none of them sees another's traces."""

from __future__ import annotations

from pathlib import Path

from tasks_app.sandbox import check_function, run_program
from tasks_app.sandbox.client import client

ECHO = "def echo(x):\n    return x\n"


def test_a_reused_keeper_carries_nothing_from_the_previous_verification(tmp_path: Path) -> None:
    marker = tmp_path / "keeper-pid"
    dirty = (
        "import builtins, os, sys, random, csv\n"
        "builtins.leaked = 'from the first run'\n"
        "sys.modules['leaked_module'] = sys\n"
        "random.seed(1)\n"
        f"open({str(marker)!r}, 'w').write(str(os.getpid()) + ' ' + str(random.random()))\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
    )
    clean = (
        "import builtins, os, sys, random\n"
        f"pid, first = open({str(marker)!r}).read().split()\n"
        "def check(candidate):\n"
        "    assert int(pid) == os.getpid(), 'the same keeper serves the caller again'\n"
        "    assert not hasattr(builtins, 'leaked')\n"
        "    assert 'leaked_module' not in sys.modules\n"
        "    assert 'csv' not in sys.modules\n"
        "    assert str(random.random()) != first, 'random is seeded afresh'\n"
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
