"""The hostile battery for test code: tests are as untrusted as the candidate.

Test code reaches the sandbox from the verifier playground (any signed-in user), from
verifier versions (edge cases) and from uploaded task rows (tests, hidden tests). Each
program below is the *tests* of a check; whatever it tries, it gets a verdict and never
an effect on the host: no file of the platform's read or written, no process outside its
unit, no socket, no memory beyond its limit.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tasks_app.sandbox import check_function

ECHO = "def echo(x):\n    return x\n"


def run_tests(tests: str, timeout: float = 2.0, memory_mb: int = 128) -> tuple[str, str]:
    result = check_function(ECHO, tests, "echo", timeout=timeout, memory_mb=memory_mb)
    return result.status, result.detail


def test_it_runs_tests_as_nobody_in_their_own_pid_space_with_an_empty_environment() -> None:
    tests = (
        "import os, socket\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
        "    found = [os.getuid(), os.getpid(), socket.gethostname(), dict(os.environ)]\n"
        "    assert found == [65534, 1, 'sandbox', {}], repr(found)\n"
    )
    assert run_tests(tests) == ("passed", "")


def test_it_keeps_the_platforms_secret_files_out_of_the_tests_reach(tmp_path: Path) -> None:
    # The reported attack: tests that read var/secret_key and put it in the assertion message.
    secret = tmp_path / "secret_key"
    secret.write_text("s3cr3t-prefix-of-the-platform-key")
    os.chmod(tmp_path, 0o755)
    tests = (
        "def check(candidate):\n"
        "    candidate(1)\n"
        f"    assert False, open({str(secret)!r}).read()\n"
    )
    status, detail = run_tests(tests)
    assert status == "failed"
    assert "s3cr3t" not in detail and "FileNotFoundError" in detail


def test_it_shows_tests_no_host_file_system() -> None:
    tests = (
        "import os\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
        "    assert sorted(os.listdir('/etc')) == ['group', 'nsswitch.conf', 'passwd']\n"
        "    assert not os.path.exists('/proc/1/environ') and not os.path.exists('/work')\n"
    )
    assert run_tests(tests) == ("passed", "")


def test_it_keeps_writes_of_the_tests_inside_their_tmp(tmp_path: Path) -> None:
    target = tmp_path / "written-by-tests"
    os.chmod(tmp_path, 0o777)
    tests = (
        "def check(candidate):\n"
        "    candidate(1)\n"
        f"    open({str(target)!r}, 'w').write('x')\n"
    )
    status, detail = run_tests(tests)
    assert status == "failed" and ("FileNotFoundError" in detail or "Permission" in detail)
    assert not target.exists()


def test_it_gives_tests_no_database_connection() -> None:
    tests = (
        "import socket\n"
        "def check(candidate):\n"
        "    candidate(1)\n"
        "    socket.create_connection(('127.0.0.1', 5432), timeout=1)\n"
    )
    status, _ = run_tests(tests)
    assert status in {"failed", "error"}
    assert status != "passed"


@pytest.mark.parametrize(
    "attack",
    [
        "import os\nos.fork()\n",
        "import subprocess\nsubprocess.run(['id'])\n",
        "import ctypes\nctypes.CDLL(None).syscall(57)\n",
    ],
    ids=["fork", "subprocess", "raw-syscall"],
)
def test_it_stops_tests_that_try_to_start_processes(attack: str) -> None:
    tests = "def check(candidate):\n    candidate(1)\n" + "".join(
        f"    {line}\n" for line in attack.splitlines()
    )
    status, detail = run_tests(tests)
    assert status == "error" and detail.startswith("verifier failure: the tests"), detail
    assert "seccomp" in detail


def test_it_stops_tests_that_allocate_gigabytes() -> None:
    tests = "def check(candidate):\n    candidate(1)\n    blob = bytearray(3 * 2 ** 30)\n"
    status, detail = run_tests(tests, memory_mb=64)
    assert status == "failed" and "MemoryError" in detail
    # Allocated in small steps, the memory limit still ends it with a verdict.
    gradual = (
        "def check(candidate):\n"
        "    candidate(1)\n"
        "    chunks = []\n"
        "    while True:\n"
        "        chunks.append(' ' * 10 ** 6)\n"
    )
    status, detail = run_tests(gradual, memory_mb=64)
    assert status in {"failed", "error"} and "emory" in detail, detail


def test_it_times_out_tests_that_never_end() -> None:
    tests = "def check(candidate):\n    candidate(1)\n    while True:\n        pass\n"
    status, detail = run_tests(tests, timeout=0.5)
    assert status == "timeout" and "tests" in detail


def test_it_takes_no_verdict_the_candidate_writes_for_the_tests() -> None:
    # A candidate that writes a forged tests' report to every descriptor it can reach: the
    # tests' process is another unit, so the forged frame never reaches the keeper as theirs.
    solution = (
        "import os, json, struct\n"
        "done = json.dumps({'done': {'passes': 2, 'total': 2, 'failure': None, 'raised': None}})\n"
        "frame = struct.pack('!I', len(done)) + done.encode()\n"
        "for fd in range(0, 64):\n"
        "    try:\n"
        "        os.write(fd, frame)\n"
        "    except OSError:\n"
        "        pass\n"
        "def echo(x):\n    return x + 1\n"
    )
    tests = "def check(candidate):\n    assert candidate(1) == 1\n    assert candidate(2) == 2\n"
    result = check_function(solution, tests, "echo", timeout=2.0)
    assert result.status == "failed" and not result.tests_passed, result


def test_it_counts_the_tests_tally_up_to_a_candidate_timeout() -> None:
    solution = "def echo(x):\n    while x > 1:\n        pass\n    return x\n"
    tests = "def check(candidate):\n    assert candidate(1) == 1\n    assert candidate(2) == 2\n"
    result = check_function(solution, tests, "echo", timeout=0.5)
    assert result.status == "timeout"
    assert (result.tests_passed, result.tests_total) == (1, 2)


def test_it_refuses_tests_that_leave_their_call_plan_by_forging_calls() -> None:
    # The tests talk to the keeper over fd 3: a hand-made call frame outside the plan is
    # the tests' own failure, never the candidate's pass.
    tests = (
        "import json, socket, struct\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
        "    chan = socket.socket(fileno=3)\n"
        "    body = json.dumps({'done': 'forged'}).encode()\n"
        "    chan.sendall(struct.pack('!I', len(body)) + body)\n"
        "    chan.recv(1)\n"
    )
    status, detail = run_tests(tests)
    assert status == "error" and detail.startswith("verifier failure: the tests"), detail


def test_tests_that_forge_their_compiled_code_mid_run_plant_nothing_for_the_next_check() -> None:
    # A fresh unit hands its compiled tests to the keeper before any of them runs, and the
    # next check of the same text reuses that code. Tests that send their own "compiled
    # code" (a check that passes anything) while they run break the protocol, and the
    # next check of the same text still runs the real tests.
    tests = (
        "import base64, json, marshal, socket, struct\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
        "    lenient = compile('def check(candidate):\\n    candidate(0)\\n', '<tests>', 'exec')\n"
        "    empty = compile('', '<prelude>', 'exec')\n"
        "    code = base64.b64encode(marshal.dumps((empty, lenient, 0, []))).decode()\n"
        "    body = json.dumps({'compiled': code}).encode()\n"
        "    chan = socket.socket(fileno=3)\n"
        "    chan.sendall(struct.pack('!I', len(body)) + body)\n"
        "    chan.recv(1)\n"
    )
    for _ in range(2):
        status, detail = run_tests(tests)
        assert status == "error" and detail.startswith("verifier failure: the tests"), detail
        wrong = check_function("def echo(x):\n    return x + 1\n", tests, "echo", timeout=2.0)
        assert wrong.status == "error" and wrong.verifier_error, wrong  # not the lenient pass
