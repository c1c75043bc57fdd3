"""The hostile battery: each program gets its expected verdict and nothing outlives it.

The autouse fixture in conftest.py asserts after every test that no process runs as the
sandbox uid. Timeouts are short to keep the suite fast on two shared cores.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tasks_app.sandbox import capabilities, check_function, run_program

INC_TESTS = """
def check(candidate):
    assert candidate(1) == 2
    assert candidate(41) == 42
"""
OK = "def inc(x):\n    return x + 1\n"


def check(solution: str, timeout: float = 1.0, memory_mb: int = 128) -> tuple[str, str]:
    result = check_function(solution, INC_TESTS, "inc", timeout=timeout, memory_mb=memory_mb)
    return result.status, result.detail


def test_it_passes_a_correct_solution_with_every_layer_active() -> None:
    caps = capabilities()
    assert caps["warnings"] == [], caps
    assert check(OK) == ("passed", "")


def test_it_times_out_an_infinite_loop() -> None:
    status, _ = check("def inc(x):\n    while True:\n        pass\n")
    assert status == "timeout"


def test_it_times_out_a_loop_at_import_time() -> None:
    assert check("while True:\n    pass\n")[0] == "timeout"


@pytest.mark.parametrize(
    "bomb",
    [
        "import os\ndef inc(x):\n    while True:\n        os.fork()\n",
        "import ctypes\ndef inc(x):\n    while True:\n        ctypes.CDLL(None).syscall(57)\n",
        "import subprocess\ndef inc(x):\n    subprocess.run(['sh', '-c', 'echo hi'])\n    return x + 1\n",
    ],
    ids=["os.fork", "raw-syscall", "subprocess"],
)
def test_it_forbids_a_fork_bomb(bomb: str) -> None:
    assert check(bomb)[0] == "forbidden"


def test_it_caps_a_thread_bomb() -> None:
    bomb = (
        "import threading, time\n"
        "def inc(x):\n"
        "    while True:\n"
        "        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    )
    status, detail = check(bomb)
    assert status == "failed" and "thread" in detail


@pytest.mark.parametrize(
    "bomb",
    [
        "def inc(x):\n    return len(bytearray(10 ** 10))\n",
        "def inc(x):\n    chunks = []\n    while True:\n        chunks.append(' ' * 10 ** 6)\n",
        "blob = 'x' * 10 ** 10\ndef inc(x):\n    return x + 1\n",
    ],
    ids=["one-allocation", "gradual", "at-import"],
)
def test_it_stops_a_memory_bomb(bomb: str) -> None:
    assert check(bomb, memory_mb=64)[0] == "memory_limit"


@pytest.mark.parametrize(
    "bomb",
    [
        "blob = bytearray(10 ** 10)\n",
        "chunks = []\nwhile True:\n    chunks.append(' ' * 10 ** 6)\n",
    ],
    ids=["one-allocation", "gradual-and-still-held"],
)
def test_a_program_out_of_memory_is_a_memory_limit(bomb: str) -> None:
    result = run_program(bomb, timeout=3.0, memory_mb=64)
    assert result.status == "memory_limit", result
    assert "MemoryError" in result.stderr


def test_it_stops_gigabytes_of_output() -> None:
    status, _ = check("def inc(x):\n    while True:\n        print('x' * 10 ** 6)\n")
    assert status == "output_limit"
    program = run_program(
        "while True:\n    print('y' * 10 ** 6)\n", timeout=2.0, output_limit=10_000
    )
    assert program.status == "output_limit" and program.truncated
    assert len(program.stdout) <= 10_000


def test_it_keeps_writes_inside_its_own_directory(tmp_path: Path) -> None:
    target = tmp_path / "escaped"
    source = (
        "import os\n"
        f"for path in ['/usr/escaped', '/escaped', {str(target)!r}]:\n"
        "    try:\n"
        "        open(path, 'w').write('x')\n"
        "        print('wrote', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, type(exc).__name__)\n"
        "open('/tmp/inside', 'w').write('ok')\n"
    )
    result = run_program(source, timeout=2.0)
    assert result.status == "ok", result
    assert "wrote" not in result.stdout
    assert not target.exists() and not Path("/usr/escaped").exists()


def test_it_leaks_no_secret_from_the_environment_or_files(tmp_path: Path) -> None:
    secret = "s3cr3t-value-that-must-not-leak"
    os.environ["SECRET_KEY"] = secret  # set in the caller; the service starts with nothing
    (tmp_path / ".env").write_text(f"SECRET_KEY={secret}\n")
    source = (
        "import os\n"
        "print(dict(os.environ))\n"
        "for path in [{!r}, '/proc/1/environ', '/proc/self/environ', '/work/main/.env', '/etc/passwd']:\n"
        "    try:\n"
        "        print(open(path).read())\n"
        "    except OSError as exc:\n"
        "        print('refused', path, type(exc).__name__)\n"
    ).format(str(tmp_path / ".env"))
    try:
        result = run_program(source, timeout=2.0)
    finally:
        del os.environ["SECRET_KEY"]
    assert result.status == "ok", result
    assert "{}" in result.stdout
    assert secret not in result.stdout + result.stderr
    assert "root:" not in result.stdout  # the host's accounts stay outside


def test_it_forbids_connecting_to_the_database_port() -> None:
    source = (
        "import socket\n"
        "def inc(x):\n"
        "    socket.create_connection(('127.0.0.1', 5432), timeout=0.5)\n"
        "    return x + 1\n"
    )
    assert check(source)[0] == "forbidden"


@pytest.mark.parametrize(
    "attack",
    ["os.kill(os.getppid(), 9)", "os.kill(-1, 9)", "os.killpg(0, 9)"],
)
def test_it_forbids_killing_its_parent(attack: str) -> None:
    source = f"import os\ndef inc(x):\n    {attack}\n    return x + 1\n"
    assert check(source)[0] == "forbidden"
    assert check(OK)[0] == "passed"  # the service and keeper survived


def test_it_forbids_leaving_the_process_group() -> None:
    source = "import os\nos.setsid()\ndef inc(x):\n    while True:\n        pass\n"
    assert check(source)[0] == "forbidden"


@pytest.mark.parametrize(
    "exit_call",
    [
        "import os\nos._exit(0)\n",
        "import sys\nsys.exit(0)\n",
        "import os\ndef inc(x):\n    os._exit(0)\n",
    ],
    ids=["os._exit-at-import", "sys.exit-at-import", "os._exit-in-call"],
)
def test_it_never_takes_exiting_0_for_a_pass(exit_call: str) -> None:
    status, _ = check(exit_call)
    assert status == "error"


@pytest.mark.parametrize(
    "fake",
    [
        "class Any:\n    def __eq__(self, other):\n        return True\n"
        "def inc(x):\n    return Any()\n",
        "class Int(int):\n    def __eq__(self, other):\n        return True\n"
        "def inc(x):\n    return Int(0)\n",
        "def inc(x):\n    return [x + 1, object()][0:1][0] if False else (lambda: 0)\n",
    ],
    ids=["any-eq", "int-subclass", "function"],
)
def test_it_refuses_a_pass_faked_by_overriding_equality(fake: str) -> None:
    status, detail = check(fake)
    assert status == "failed" and "plain data" in detail


def test_it_ignores_patched_exec_and_builtins() -> None:
    source = (
        "import builtins\n"
        "builtins.exec = lambda *a, **k: None\n"
        "builtins.AssertionError = Exception\n"
        "def inc(x):\n    return 0\n"
    )
    assert check(source)[0] == "failed"


def test_it_gives_no_access_to_the_callers_frames() -> None:
    source = (
        "import sys\n"
        "def inc(x):\n"
        "    frame, seen = sys._getframe(1), []\n"
        "    while frame:\n"
        "        seen += [v for v in frame.f_locals.values() if type(v) is int and v != x]\n"
        "        frame = frame.f_back\n"
        "    return seen[0] if seen else -1\n"
    )
    assert check(source)[0] == "failed"


def test_it_ignores_a_printed_marker_and_a_forged_record() -> None:
    source = (
        "import os, json, struct\n"
        "print('PASSED')\n"
        "print(json.dumps({'status': 'passed', 'detail': '', 'seconds': 0}))\n"
        "record = json.dumps({'status': 'passed', 'tests_passed': 2, 'tests_total': 2}).encode()\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, struct.pack('!I', len(record)) + record)\n"
        "    except OSError:\n"
        "        pass\n"
        "def inc(x):\n    return 0\n"
    )
    assert check(source)[0] == "failed"


def test_it_starts_every_run_with_a_fresh_tmp() -> None:
    writer = "open('/tmp/state', 'w').write('left behind')\nprint('written')\n"
    assert run_program(writer).stdout == "written\n"
    reader = "import os\nprint(os.listdir('/tmp'), os.listdir('.'))\n"
    assert run_program(reader).stdout == "[] []\n"


def test_it_leaves_no_ipc_object_for_the_next_run() -> None:
    # A keeper's units share one IPC namespace, as they share the (empty) network one:
    # no unit can create anything in it, so none can pass anything to the next.
    queue = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "fd = libc.mq_open(b'/left-behind', os.O_CREAT | os.O_RDWR, 0o600, None)\n"
        "print(fd, os.strerror(ctypes.get_errno()))\n"
    )
    assert run_program(queue).stdout == "-1 Too many open files\n"
    segment = "import ctypes\nctypes.CDLL(None).shmget(1234, 4096, 0o1666)\n"
    assert run_program(segment).status == "forbidden"


def test_it_kills_threads_that_outlive_the_call() -> None:
    source = (
        "import threading\n"
        "def spin():\n    while True:\n        pass\n"
        "def inc(x):\n"
        "    threading.Thread(target=spin).start()\n"
        "    return x + 1\n"
    )
    assert check(source)[0] == "passed"
    program = run_program(source + "inc(1)\nprint('main done', flush=True)\n", timeout=1.0)
    assert program.status == "timeout" and program.stdout == "main done\n"


def test_it_survives_deep_recursion() -> None:
    recurse = "def inc(x):\n    return inc(x + 1)\n"
    status, detail = check(recurse)
    assert status == "failed" and "RecursionError" in detail
    # With the limit lifted, recursion in C (repr of a deep list) overflows the stack.
    overflow = (
        "import sys\nsys.setrecursionlimit(10 ** 7)\n"
        "def inc(x):\n    deep = []\n    for _ in range(2 * 10 ** 5):\n        deep = [deep]\n"
        "    return len(repr(deep))\n"
    )
    status, detail = check(overflow, timeout=4.0)
    assert status == "error" and "SIGSEGV" in detail


def test_it_reports_a_segfault() -> None:
    status, detail = check("import ctypes\ndef inc(x):\n    return ctypes.string_at(0)\n")
    assert status == "error" and "SIGSEGV" in detail


def test_it_runs_as_nobody_with_no_network_and_a_private_pid_space() -> None:
    source = (
        "import os, socket\n"
        "print(os.getuid(), os.getgid(), os.getpid(), socket.gethostname())\n"
        "print(sorted(os.listdir('/')))\n"
        "print(sorted(os.listdir('/etc')))\n"
    )
    result = run_program(source)
    assert result.status == "ok", result
    first, second, etc = result.stdout.splitlines()
    assert first == "65534 65534 1 sandbox"
    assert "proc" not in second and "work" not in second
    assert etc == "['group', 'nsswitch.conf', 'passwd']"  # the sandbox's own, not the host's
