"""Arithmetic: procedural, seeded sums, differences and products; difficulty = operand digits."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import Task

name = "arithmetic"
label = "Arithmetic"
description = "Add, subtract or multiply whole numbers; the answer must be exact."
difficulty_levels = [1, 2, 3, 4, 5, 6]
"""Level d uses operands of d digits."""
prompt_template = "Compute {question}. Reply with the result as 'Answer: <number>'."
procedural = True
importable = True
record_fields = ["prompt", "answer", "difficulty", "source_id"]
params_schema: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ops": {
            "type": "array",
            "items": {"enum": ["+", "-", "*"]},
            "minItems": 1,
            "uniqueItems": True,
            "default": ["+", "-", "*"],
        },
        "allow_negative": {"type": "boolean", "default": True},
    },
    "additionalProperties": False,
}

_OPS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
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
    low, high = 10 ** (difficulty - 1) if difficulty > 1 else 0, 10**difficulty - 1
    tasks = []
    for _ in range(n):
        a, b, op = rng.randint(low, high), rng.randint(low, high), rng.choice(opts["ops"])
        if op == "-" and not opts["allow_negative"] and b > a:
            a, b = b, a
        tasks.append(_task(f"{a} {op} {b}", _OPS[op](a, b), difficulty, template))
    return tasks


def _task(question: str, result: int, difficulty: int, template: str | None) -> Task:
    return Task(
        family=name,
        prompt=common.fill(template or prompt_template, question=question),
        expected={"answer": str(result)},
        difficulty=difficulty,
    )


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
        "final_answer_or_last_number", {"kind": "numeric_match", "name": "answer"}
    )
