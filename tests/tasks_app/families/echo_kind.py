"""A family kind plugged in through ``TASK_FAMILY_KINDS``, with a default verifier of its own.

Tests register it as ``{"echo": "tests.tasks_app.families.echo_kind"}``: repeat a word back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import Task

name = "echo"
label = "Echo"
description = "Repeat the word back."
difficulty_levels = [1, 2]
prompt_template = "Repeat {question}. Reply as 'Answer: <word>'."
procedural = True
importable = False
record_fields = ["prompt", "answer"]
params_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def generate(
    n: int,
    *,
    difficulty: int,
    seed: int,
    params: Mapping[str, Any] | None = None,
    template: str | None = None,
) -> list[Task]:
    rng = common.seeded_rng(seed, name, difficulty, n)
    words = [" ".join(rng.choice(WORDS) for _ in range(difficulty)) for _ in range(n)]
    return [
        Task(
            family=name,
            prompt=common.fill(template or prompt_template, question=word),
            expected={"answer": word},
            difficulty=difficulty,
        )
        for word in words
    ]


def from_record(
    record: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    template: str | None = None,
) -> Task:
    raise NotImplementedError


def reference_response(task: Task) -> str:
    return f"Answer: {task.expected['answer']}"


def extract_answer(response: str) -> str | None:
    return common.tagged_answer(response)


def default_verifier() -> dict[str, Any]:
    # Unlike any built-in kind's default: case-insensitive, within a length limit.
    return {
        "extract": "final_answer_or_last_line",
        "layers": [
            {"kind": "string_match", "name": "echoed", "params": {"case_sensitive": False}},
            {"kind": "length", "name": "short", "params": {"max_chars": 200}},
        ],
        "reward": {"weights": {"outcome": 1.0}},
    }
