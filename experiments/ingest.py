"""Checking a batch of metric points, item by item (pure: no Django).

The ingest endpoint answers for every item: accepted, or refused with the field and the
reason. Nothing is dropped without saying so. Limits follow MLflow's ``log-batch`` (at most
1,000 metrics and 1 MB a request), so a client written for one fits the other.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

MAX_POINTS_PER_BATCH = 1000
MAX_BATCH_BYTES = 1024 * 1024
MAX_KEY_LENGTH = 120  # MetricPoint.key's column
MAX_STEP = 2**31 - 1  # MetricPoint.step is a 32-bit integer column
MAX_TOKENS = 2**63 - 1
FIELDS = ("key", "step", "value", "wall_time", "tokens")
# Letters, digits and the punctuation metric names use (``rewards/format/mean``, ``pass@1``,
# ``clip_ratio/low_mean``, ``eval_loss``); no control characters, quotes or backslashes.
KEY_PATTERN = re.compile(r"[A-Za-z0-9_./:@%+=()\[\] -]+")
KEY_RULE = (
    f"1 to {MAX_KEY_LENGTH} characters: letters, digits, spaces and _ - . / : @ % + = ( ) [ ]"
    " (no commas: a query lists keys with them), not starting or ending with a space"
)


@dataclass(frozen=True)
class Point:
    """One value of one metric at one step; (run, key, step) is its identity."""

    key: str
    step: int
    value: float | None
    """None for NaN or infinity, which JSON cannot carry."""
    wall_time: float
    """Seconds since the epoch when the point was measured."""
    tokens: int | None = None
    """Tokens seen by the run up to this step, when the trainer counts them."""


@dataclass(frozen=True)
class Problem:
    field: str | None
    code: str
    message: str


@dataclass
class Checked:
    """A batch after checking: the points to write, and a verdict per item in order."""

    points: list[Point] = field(default_factory=list)
    refused: dict[int, list[Problem]] = field(default_factory=dict)
    """Problems by item index; an index not here was accepted."""


def check_batch(items: list[Any], *, now: float) -> Checked:
    """Check every item; ``now`` is the wall time of a point that brings none."""
    checked = Checked()
    first_index: dict[tuple[str, int], int] = {}
    for index, item in enumerate(items):
        problems = check_item(item)
        if not problems:
            identity = (item["key"], item["step"])
            if identity in first_index:
                problems = [duplicate(first_index[identity])]
            else:
                first_index[identity] = index
        if problems:
            checked.refused[index] = problems
        else:
            checked.points.append(to_point(item, now))
    return checked


def duplicate(earlier: int) -> Problem:
    return Problem(
        None,
        "duplicate",
        f"Item {earlier} of this batch has the same key and step; send one value per key and"
        " step in a batch (a later batch overwrites).",
    )


def check_item(item: Any) -> list[Problem]:
    if not isinstance(item, dict):
        return [Problem(None, "invalid", "Expected an object with key, step and value.")]
    problems = [
        Problem(str(name), "unknown_field", f"Unknown field; a point has {', '.join(FIELDS)}.")
        for name in item
        if name not in FIELDS
    ]
    for name in ("key", "step", "value"):
        if name not in item:
            problems.append(Problem(name, "required", "This field is required."))
    checks = {
        "key": key_problem,
        "step": step_problem,
        "value": value_problem,
        "wall_time": wall_time_problem,
        "tokens": tokens_problem,
    }
    for name, check in checks.items():
        if name in item:
            problem = check(item[name])
            if problem is not None:
                problems.append(problem)
    return problems


def key_problem(key: Any) -> Problem | None:
    if not isinstance(key, str):
        return Problem("key", "invalid", f"A metric key is a string; got {type_name(key)}.")
    if len(key) > MAX_KEY_LENGTH or not KEY_PATTERN.fullmatch(key) or key != key.strip():
        return Problem("key", "invalid", f"A metric key is {KEY_RULE}; got {key[:40]!r}.")
    return None


def step_problem(step: Any) -> Problem | None:
    if not is_integer(step):
        return Problem("step", "invalid", f"A step is a whole number; got {type_name(step)}.")
    if step < 0:
        return Problem("step", "min_value", f"A step is 0 or more; got {step}.")
    if step > MAX_STEP:
        return Problem("step", "max_value", f"A step is at most {MAX_STEP}; got {step}.")
    return None


def value_problem(value: Any) -> Problem | None:
    # null stands for NaN or infinity: a trainer that logged one still gets its step drawn.
    if value is None or as_float(value) is not None:
        return None
    return Problem(
        "value", "invalid", f"A value is a number (or null for NaN); got {type_name(value)}."
    )


def wall_time_problem(wall_time: Any) -> Problem | None:
    seconds = as_float(wall_time)
    if wall_time is None or (seconds is not None and math.isfinite(seconds) and seconds >= 0):
        return None
    return Problem(
        "wall_time", "invalid", "wall_time is seconds since the epoch: a number, 0 or more."
    )


def tokens_problem(tokens: Any) -> Problem | None:
    if tokens is None or (is_integer(tokens) and 0 <= tokens <= MAX_TOKENS):
        return None
    return Problem("tokens", "invalid", "tokens is a whole number of tokens seen, 0 or more.")


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_float(value: Any) -> float | None:
    """The number as a float; None for what is not a number or an integer past float's range."""
    if not is_number(value):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def type_name(value: Any) -> str:
    names = {
        type(None): "null",
        bool: "a boolean",
        str: "a string",
        list: "a list",
        dict: "an object",
    }
    return names.get(type(value), repr(value)[:40])


def to_point(item: dict[str, Any], now: float) -> Point:
    value = as_float(item["value"])
    finite = value if value is not None and math.isfinite(value) else None
    wall_time = item.get("wall_time")
    return Point(
        key=item["key"],
        step=item["step"],
        value=finite,
        wall_time=float(wall_time) if wall_time is not None else now,
        tokens=item.get("tokens"),
    )
