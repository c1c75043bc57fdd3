"""Python functions judged by unit tests; imports HumanEval (prompt, tests, canonical solution)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import RowError, Task

name = "python-function"
label = "Python functions"
description = "Complete a Python function so that its unit tests pass."
difficulty_levels = [1, 2, 3, 4, 5]
prompt_template = (
    "Complete the following Python function. Reply with the whole function, imports "
    "included, in one ```python block.\n\n```python\n{code}```"
)
procedural = False
importable = True
record_fields = [
    "prompt",
    "entry_point",
    "tests",
    "hidden_tests",
    "solution",
    "difficulty",
    "source_id",
]
required_fields = ["prompt", "entry_point", "tests"]
params_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

# Difficulty proxy: the size of the reference solution and of its tests, as non-blank lines
# of the solution plus a quarter of the test's `assert`s (or the asserts alone, at twice
# the weight, when a row has no solution). The thresholds cut HumanEval into quintiles.
SIZE_THRESHOLDS = (3.25, 6.25, 8.75, 12.5)

HUMANEVAL_MAPPING = {
    "prompt": "prompt",
    "entry_point": "entry_point",
    "tests": "test",
    "solution": "canonical_solution",
    "source_id": "task_id",
}
"""Field mapping for HumanEval's columns."""

# Modules a solution has no business importing: they reach the file system, processes or the
# network. The sandbox enforces its own limits too; this makes it a verdict, before any test runs.
FORBIDDEN_IMPORTS = (
    "os",
    "sys",
    "subprocess",
    "socket",
    "shutil",
    "ctypes",
    "multiprocessing",
    "threading",
    "signal",
    "pathlib",
    "importlib",
    "http",
    "urllib",
    "requests",
    "pickle",
    "builtins",
)


def generate(
    n: int,
    *,
    difficulty: int,
    seed: int,
    params: Mapping[str, Any] | None = None,
    template: str | None = None,
) -> list[Task]:
    raise common.not_procedural(name)


def from_record(
    record: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    template: str | None = None,
) -> Task:
    """A row with the function's ``prompt`` (signature + docstring), ``entry_point``, ``tests``."""
    code = common.require_text(record, "prompt")
    entry_point = common.require_text(record, "entry_point").strip()
    if not entry_point.isidentifier():
        raise RowError("entry_point", f"must be a Python identifier, got {entry_point!r}")
    tests = common.require_text(record, "tests")
    _check_compiles(tests, "tests")
    expected = {"entry_point": entry_point, "tests": tests, "prelude": code}
    hidden = common.optional_text(record, "hidden_tests")
    if hidden:
        _check_compiles(hidden, "hidden_tests")
        expected["hidden_tests"] = hidden
    solution = common.optional_text(record, "solution")
    proxy = common.proxy_level(size_score(solution, tests), SIZE_THRESHOLDS)
    return Task(
        family=name,
        prompt=common.fill(
            template or prompt_template, code=code if code.endswith("\n") else code + "\n"
        ),
        expected=expected,
        difficulty=common.row_difficulty(record, difficulty_levels, default=proxy),
        source_id=common.optional_text(record, "source_id"),
        meta={
            **({"solution": solution} if solution else {}),
            **common.difficulty_meta(record, "solution_and_test_size"),
        },
    )


def size_score(solution: str, tests: str) -> float:
    """The difficulty proxy's score: bigger solutions with more assertions grade harder."""
    asserts = tests.count("assert")
    if not solution.strip():
        return asserts / 2
    return sum(1 for line in solution.splitlines() if line.strip()) + asserts / 4


def _check_compiles(source: str, field: str) -> None:
    """Reject test code that cannot even parse; it would fail every response alike."""
    try:
        compile(source, f"<{field}>", "exec")
    except SyntaxError as exc:
        raise RowError(field, f"is not valid Python (line {exc.lineno}: {exc.msg})") from None


def reference_response(task: Task) -> str:
    """The prompt's code followed by the canonical body, fenced as the verifier expects."""
    solution = task.meta.get("solution")
    if not solution:
        raise ValueError(f"task {task.source_id or task.content_hash()[:12]} has no solution")
    return f"```python\n{task.expected['prelude']}{solution}```"


def extract_answer(response: str) -> str | None:
    return common.fenced_block(response, {"python", "py", "python3"})


def default_verifier() -> dict[str, Any]:
    return {
        "extract": "python_block",
        "layers": [
            {"kind": "python_ast", "name": "parses"},
            {
                "kind": "forbidden",
                "name": "no_unsafe_imports",
                # The extracted code, not the prose around it: a reply may explain why it
                # does not use ``os``.
                "params": {"imports": list(FORBIDDEN_IMPORTS), "scope": "answer"},
            },
            {"kind": "unit_tests", "name": "tests"},
            {"kind": "hidden_tests", "name": "hidden_tests"},
        ],
        # Fraction of tests passed gives partial credit; all of them earn the outcome.
        "reward": {"weights": {"outcome": 0.7, "process": 0.3}},
    }


def import_humaneval(path: str | Path, template: str | None = None) -> list[Task]:
    """All problems of HumanEval (``HumanEval.jsonl.gz`` or plain JSONL) with their tests."""
    return [
        from_record(
            {target: row.get(source) for target, source in HUMANEVAL_MAPPING.items()},
            template=template,
        )
        for row in _rows(path)
    ]


def _rows(path: str | Path) -> Iterator[dict[str, Any]]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
