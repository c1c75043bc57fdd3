"""String operations on digit strings: sort, reverse, de-duplicate, count; difficulty = length.

Digit sorting is what the CPU demo trains a tiny model on, so prompts are short and regular.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import Task

name = "string-ops"
label = "String operations"
description = "Sort, reverse, de-duplicate or count digits in a string; the answer is exact."
difficulty_levels = [1, 2, 3, 4, 5, 6]
LENGTHS = {1: 3, 2: 5, 3: 8, 4: 12, 5: 16, 6: 24}
"""Digits in the input string at each level."""
prompt_template = "{question} Reply as 'Answer: <result>'."
procedural = True
importable = True
record_fields = ["prompt", "answer", "difficulty", "source_id"]
params_schema: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ops": {
            "type": "array",
            "items": {"enum": ["sort", "reverse", "dedupe", "count"]},
            "minItems": 1,
            "uniqueItems": True,
            "default": ["sort", "reverse", "dedupe", "count"],
        },
    },
    "additionalProperties": False,
}


def _sort(digits: str, rng: random.Random) -> tuple[str, str]:
    return f"Sort the digits {digits} in ascending order.", "".join(sorted(digits))


def _reverse(digits: str, rng: random.Random) -> tuple[str, str]:
    return f"Reverse the digits {digits}.", digits[::-1]


def _dedupe(digits: str, rng: random.Random) -> tuple[str, str]:
    kept = "".join(dict.fromkeys(digits))
    question = f"Remove repeated digits from {digits}, keeping the first occurrence of each."
    return question, kept


def _count(digits: str, rng: random.Random) -> tuple[str, str]:
    target = rng.choice(digits)
    return f"How many times does the digit {target} appear in {digits}?", str(digits.count(target))


_OPS: dict[str, Callable[[str, random.Random], tuple[str, str]]] = {
    "sort": _sort,
    "reverse": _reverse,
    "dedupe": _dedupe,
    "count": _count,
}


def generate(
    n: int,
    *,
    difficulty: int,
    seed: int,
    params: Mapping[str, Any] | None = None,
    template: str | None = None,
) -> list[Task]:
    opts = common.validate_params(params_schema, params)
    common.check_level(difficulty_levels, difficulty)
    rng = common.seeded_rng(seed, name, difficulty, n, sorted(opts["ops"]))
    tasks = []
    for _ in range(n):
        digits = "".join(rng.choice("0123456789") for _ in range(LENGTHS[difficulty]))
        op = rng.choice(opts["ops"])
        question, answer = _OPS[op](digits, rng)
        tasks.append(
            Task(
                family=name,
                prompt=common.fill(template or prompt_template, question=question),
                expected={"answer": answer},
                difficulty=difficulty,
                meta={"op": op},
            )
        )
    return tasks


def from_record(
    record: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    template: str | None = None,
) -> Task:
    return common.exact_answer_record(record, name, difficulty_levels, template or prompt_template)


def reference_response(task: Task) -> str:
    return f"Answer: {task.expected['answer']}"


def extract_answer(response: str) -> str | None:
    return common.tagged_answer(response)


def default_verifier() -> dict[str, Any]:
    return common.answer_verifier(
        "final_answer_or_last_line",
        {"kind": "string_match", "name": "answer", "params": {"case_sensitive": True}},
    )
