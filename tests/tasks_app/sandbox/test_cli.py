"""``python -m tasks_app.sandbox``: one JSON line, the verdict never in the exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TESTS = "def check(candidate):\n    assert candidate(2) == 4\n    assert double_of(3) == 6\n"
PRELUDE = "def double_of(x):\n    return candidate_helper(x)\ndef candidate_helper(x):\n    return 2 * x\n"


def cli(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "tasks_app.sandbox", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


def test_it_checks_a_solution_with_a_prelude(tmp_path: Path) -> None:
    (tmp_path / "sol.py").write_text("def double(x):\n    return x * 2\n")
    (tmp_path / "tests.py").write_text(TESTS)
    (tmp_path / "prelude.py").write_text(PRELUDE)
    out = cli(
        "check",
        *("--solution", str(tmp_path / "sol.py"), "--tests", str(tmp_path / "tests.py")),
        *("--entry", "double", "--prelude", str(tmp_path / "prelude.py"), "--timeout", "2"),
    )
    assert out["status"] == "passed" and out["tests_passed"] == 2
    assert isinstance(out["seconds"], float)


def test_it_prints_only_its_own_line_when_the_solution_prints_a_pass(tmp_path: Path) -> None:
    marker = json.dumps({"status": "passed", "detail": "", "seconds": 0.0})
    (tmp_path / "sol.py").write_text(f"print({marker!r})\ndef double(x):\n    return 0\n")
    (tmp_path / "tests.py").write_text(TESTS)
    (tmp_path / "prelude.py").write_text(PRELUDE)
    out = cli(
        "check",
        *("--solution", str(tmp_path / "sol.py"), "--tests", str(tmp_path / "tests.py")),
        *("--entry", "double", "--prelude", str(tmp_path / "prelude.py")),
    )
    assert out["status"] == "failed"


def test_it_runs_a_program(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text("import sys\nprint(sys.stdin.read().upper())\nsys.exit(3)\n")
    (tmp_path / "in.txt").write_text("hello")
    out = cli("run", str(tmp_path / "prog.py"), "--stdin", str(tmp_path / "in.txt"))
    assert (out["status"], out["stdout"], out["exit_code"]) == ("error", "HELLO\n", 3)


def test_it_reports_its_layers() -> None:
    out = cli("capabilities")
    assert out["seccomp"] is True and out["namespaces"]["pid"] is True  # type: ignore[index]
