"""Math word problems with a numeric final answer; imports GSM8K (``answer`` ends ``#### N``)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import RowError, Task

name = "math-word"
label = "Math word problems"
description = "Solve a word problem; the final number after '####' is compared numerically."
difficulty_levels = [1, 2, 3, 4, 5]
prompt_template = (
    "Solve the problem step by step. End your reply with a line '#### <number>'.\n\n{question}"
)
procedural = False
importable = True
record_fields = ["prompt", "answer", "difficulty", "source_id"]
params_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

# Difficulty proxy: the number of steps of the worked solution (its non-blank lines before
# '####'). On GSM8K's test split 2, 3, 4, 5 and 6+ steps give five levels of 326, 371, 297,
# 175 and 150 problems. A row without a worked solution is level 1 unless it says otherwise.
STEP_THRESHOLDS = (2, 3, 4, 5)

GSM8K_MAPPING = {"prompt": "question", "answer": "answer"}
"""Field mapping for GSM8K's ``question`` / ``answer`` columns."""


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
    """A row with ``prompt`` and ``answer``: a number, or a worked solution ending ``#### N``."""
    question = common.require_text(record, "prompt")
    answer, solution = _answer(record.get("answer"))
    proxy = common.proxy_level(solution_steps(solution), STEP_THRESHOLDS)
    return Task(
        family=name,
        prompt=common.fill(template or prompt_template, question=question.strip()),
        expected={"answer": answer},
        difficulty=common.row_difficulty(record, difficulty_levels, default=proxy),
        source_id=common.optional_text(record, "source_id"),
        meta={
            **({"solution": solution} if solution else {}),
            **common.difficulty_meta(record, "solution_steps"),
        },
    )


def solution_steps(solution: str) -> int:
    """Non-blank lines of a worked solution before its final '#### N' line."""
    body = solution.rsplit("####", 1)[0]
    return sum(1 for line in body.splitlines() if line.strip())


def _answer(value: Any) -> tuple[int | float, str]:
    if isinstance(value, bool) or value is None or value == "":
        raise RowError("answer", "is required (a number or text ending '#### <number>')")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise RowError("answer", f"must be a finite number, got {value!r}")
        return (int(value) if float(value).is_integer() else value), ""
    if not isinstance(value, str):
        raise RowError("answer", f"must be a number or text, got {type(value).__name__}")
    final = value.rsplit("####", 1)[-1]
    number = common.parse_number(final)
    if number is None:
        raise RowError("answer", "has no final number (expected text ending '#### <number>')")
    return number, value if "####" in value else ""


def reference_response(task: Task) -> str:
    """The dataset's worked solution when it has one, else just the marked final answer."""
    return task.meta.get("solution") or f"#### {task.expected['answer']}"


def extract_answer(response: str) -> int | float | None:
    """The number after the last ``####``, else the last number in the response."""
    tail = response.rsplit("####", 1)[-1] if "####" in response else response
    return common.parse_number(tail)


def default_verifier() -> dict[str, Any]:
    return common.answer_verifier(
        "final_answer_or_last_number",
        {"kind": "numeric_match", "name": "answer", "params": {"abs_tol": 1e-4}},
    )


def import_gsm8k(path: str | Path, template: str | None = None) -> list[Task]:
    """Every problem of a GSM8K JSONL file (``question``, ``answer``) as a task."""
    return [
        from_record(
            {"prompt": row["question"], "answer": row["answer"], "source_id": f"gsm8k/{i}"},
            template=template,
        )
        for i, row in enumerate(_jsonl(path))
    ]


def _jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
