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

GSM8K_MAPPING = {"prompt": "question", "answer": "answer"}
"""Field mapping for GSM8K's ``question`` / ``answer`` columns."""


def generate(
    n: int, *, difficulty: int, seed: int, params: Mapping[str, Any] | None = None
) -> list[Task]:
    raise common.not_procedural(name)


def from_record(record: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> Task:
    """A row with ``prompt`` and ``answer``: a number, or a worked solution ending ``#### N``."""
    question = common.require_text(record, "prompt")
    answer, solution = _answer(record.get("answer"))
    return Task(
        family=name,
        prompt=prompt_template.format(question=question.strip()),
        expected={"answer": answer},
        difficulty=common.row_difficulty(record, difficulty_levels, default=1),
        source_id=common.optional_text(record, "source_id"),
        meta={"solution": solution} if solution else {},
    )


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
    return common.verifier_spec(name)


def import_gsm8k(path: str | Path) -> list[Task]:
    """Every problem of a GSM8K JSONL file (``question``, ``answer``) as a task."""
    return [
        from_record({"prompt": row["question"], "answer": row["answer"], "source_id": f"gsm8k/{i}"})
        for i, row in enumerate(_jsonl(path))
    ]


def _jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
