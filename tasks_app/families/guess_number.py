"""The tasks of the guess-the-number environment (``tasks_app.environments.guess_number``).

A task is a secret in an interval of ``2**d - 1`` numbers at difficulty ``d`` (from 2 to 6),
with a budget of ``d + 1`` turns: one more than a bisection needs, so the budget is always
enough for a model that halves the interval and often too short for one that guesses at
random or at the interval's ends. The prompt
``guess 3-17?`` is the format of ``training/guessing.py`` (which this package may not import;
a test asserts they agree). The verifier judges the episode's last guess against the secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasks_app.families import common
from tasks_app.families.base import RowError, Task

name = "guess-number"
label = "Guess the number (multi-turn CPU demo)"
description = (
    "An episode, not a single answer: find a secret number from higher/lower feedback within "
    "a budget of turns. Played in the guess-number environment."
)
environment = "guess-number"
"""The environment kind that plays these tasks."""
difficulty_levels = [2, 3, 4, 5, 6]
"""Level d: an interval of 2**d - 1 numbers and d + 1 turns."""
prompt_template = "guess {low}-{high}?"
procedural = True
importable = True
record_fields = ["secret", "low", "high", "source_id"]
params_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
MAX_NUMBER = 99
"""Every number stays within two digits."""


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
    size = 2**difficulty - 1
    tasks = []
    for _ in range(n):
        low = rng.randint(1, MAX_NUMBER - size + 1)
        tasks.append(make_task(rng.randint(low, low + size - 1), low, low + size - 1, template))
    return tasks


def turn_budget(low: int, high: int) -> int:
    """One turn more than a bisection needs at most for ``high - low + 1`` numbers."""
    return (high - low + 1).bit_length() + 1


def make_task(
    secret: int, low: int, high: int, template: str | None = None, source_id: str = ""
) -> Task:
    budget = turn_budget(low, high)
    return Task(
        family=name,
        prompt=common.fill(template or prompt_template, low=str(low), high=str(high)),
        expected={"answer": str(secret), "low": low, "high": high, "max_turns": budget},
        difficulty=min(max(budget - 1, difficulty_levels[0]), difficulty_levels[-1]),
        source_id=source_id,
    )


def from_record(
    record: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    template: str | None = None,
) -> Task:
    values = {}
    for field in ("secret", "low", "high"):
        text = common.optional_text(record, field).strip()
        if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= MAX_NUMBER:
            raise RowError(field, f"must be a whole number from 0 to {MAX_NUMBER}")
        values[field] = int(text)
    if not values["low"] <= values["secret"] <= values["high"]:
        raise RowError("secret", "must lie between low and high")
    if turn_budget(values["low"], values["high"]) > difficulty_levels[-1] + 1:
        raise RowError("high", f"the interval may hold at most {2 ** difficulty_levels[-1] - 1}")
    source_id = common.optional_text(record, "source_id")
    return make_task(values["secret"], values["low"], values["high"], template, source_id)


def reference_response(task: Task) -> str:
    """The winning last guess: the secret."""
    return str(task.expected["answer"])


def extract_answer(response: str) -> str | None:
    return response.strip() or None


def default_verifier() -> dict[str, Any]:
    """The episode's last guess (``final_state()["answer"]``) against the secret, exactly."""
    return common.answer_verifier(
        "full_text",
        {
            "kind": "string_match",
            "name": "answer",
            "params": {"case_sensitive": True, "strip_quotes": False, "keep_whitespace": True},
        },
    )
