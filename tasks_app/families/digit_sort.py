"""Digit sorting in the built-in tiny model's own format: the family the CPU demo trains on.

The tiny model (``tiny-digit-sort``) is warm-started on prompts ``sort 3141=`` answered by the
sorted digits ``1134`` and nothing else, so a run on this family starts where the model can
already score and visibly improves. The format mirrors ``training/digits.py``, which this
package may not import (tasks_app never imports training): keep the two in step; a test
asserts they write the same prompt for the same digits.

Difficulty is the number of digits, 2 to 8 (the model is warm-started on 2 to 6, so 7 and 8
are the levels RL must reach).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import RowError, Task

name = "digit-sort"
label = "Digit sorting (CPU demo)"
description = (
    "Sort a list of digits ascending, written 'sort 3141=' and answered '1134': the format "
    "of the built-in tiny model, which learns it on a CPU in minutes."
)
difficulty_levels = [2, 3, 4, 5, 6, 7, 8]
"""Level d sorts d digits."""
prompt_template = "sort {digits}="
"""As ``training.digits.make_item``."""
procedural = True
importable = True
record_fields = ["digits", "source_id"]
params_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def generate(
    n: int,
    *,
    difficulty: int,
    seed: int,
    params: Mapping[str, Any] | None = None,
    template: str | None = None,
) -> list[Task]:
    common.validate_params(params_schema, params)
    common.check_level(difficulty_levels, difficulty)
    rng = common.seeded_rng(seed, name, difficulty, n)
    return [
        make_task("".join(rng.choice("0123456789") for _ in range(difficulty)), template)
        for _ in range(n)
    ]


def make_task(digits: str, template: str | None = None, source_id: str = "") -> Task:
    return Task(
        family=name,
        prompt=common.fill(template or prompt_template, digits=digits),
        expected={"answer": "".join(sorted(digits))},
        difficulty=len(digits),
        source_id=source_id,
    )


def from_record(
    record: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    template: str | None = None,
) -> Task:
    digits = common.optional_text(record, "digits").strip()
    if not digits:
        raise RowError("digits", "is required")
    if not digits.isascii() or not digits.isdigit():
        raise RowError("digits", f"must be digits 0-9 only, got {digits[:40]!r}")
    if len(digits) not in difficulty_levels:
        raise RowError("digits", f"must be {difficulty_levels[0]} to {difficulty_levels[-1]} long")
    return make_task(digits, template, common.optional_text(record, "source_id"))


def reference_response(task: Task) -> str:
    """The completion the tiny model learns: the sorted digits alone."""
    return str(task.expected["answer"])


def extract_answer(response: str) -> str | None:
    """The stripped completion, as ``training.digits`` judges it; None when it is empty."""
    return response.strip() or None


def default_verifier() -> dict[str, Any]:
    """The exact string, as the tiny model's own reward judges it: no quotes stripped, no
    spaces collapsed, so ``1 134`` or ``"1134"`` fail there and here alike."""
    return common.answer_verifier(
        "full_text",
        {
            "kind": "string_match",
            "name": "answer",
            "params": {"case_sensitive": True, "strip_quotes": False, "keep_whitespace": True},
        },
    )
