"""User-written regular expressions: measured before they compile, timed while they match.

Python's ``re`` cannot be stopped: ``(a|aa)+$`` against forty a's and a b backtracks for
minutes while holding the GIL, and so stalls every request of the process. The ``regex``
package matches the same syntax with a ``timeout=`` and releases the GIL while it matches, so
every pattern from a spec, a task or a JSON Schema is compiled and matched here, with it.

``regex`` has one weak spot of its own: it unrolls counted repeats when it compiles, so
``(?:(?:a{1000}){1000}){10}`` takes seconds and gigabytes before any text is seen. A pattern is
therefore measured first on the standard library's parse tree (its items, with each counted
repeat multiplied through its nesting) and refused past a bound.

Several matches that make one check (a layer's list of patterns, a JSON Schema's keywords)
share one deadline, set with :func:`time_limit`. Pure Python: no Django import.
"""

from __future__ import annotations

import functools
import re
import re._constants as sre_constants  # the stdlib parser's tree: stable within 3.11-3.12
import re._parser as sre_parser
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import regex

PATTERN_LIMIT_CHARS = 1000
UNROLLED_LIMIT_ITEMS = 100_000  # items once counted repeats are unrolled: ~0.05 s to compile
MATCH_TIMEOUT_S = 0.25  # one search; a check of several shares time_limit()'s deadline

_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT}
_DEADLINE: ContextVar[float | None] = ContextVar("safe_regex_deadline", default=None)


class TimeLimit(TimeoutError):
    """A match, or a whole check made of several, ran past its time limit."""


def pattern_problem(pattern: Any) -> str | None:
    """Why ``pattern`` is not a usable regular expression, or None when it is."""
    if not isinstance(pattern, str):
        return "must be a string"
    return _problem_of(pattern)


@functools.lru_cache(maxsize=1024)
def _problem_of(pattern: str) -> str | None:
    if len(pattern) > PATTERN_LIMIT_CHARS:
        return f"is longer than {PATTERN_LIMIT_CHARS} characters"
    try:
        size = _unrolled(sre_parser.parse(pattern))
        if size > UNROLLED_LIMIT_ITEMS:
            return f"repeats too much: {size:,} items once its counted repeats are unrolled"
        regex.compile(pattern, regex.V0)
    except RecursionError:
        return "nests groups too deeply"
    except (re.error, regex.error, OverflowError) as exc:
        return f"is not a valid regular expression ({exc})"
    return None


def _unrolled(items: Iterable[tuple[Any, Any]]) -> int:
    total = 0
    for op, av in items:
        if op in _REPEATS:
            low, high, body = av
            total += (high if high != sre_constants.MAXREPEAT else max(low, 1)) * _unrolled(body)
        else:
            total += 1 + sum(_unrolled(sub) for sub in _subpatterns(av))
    return total


def _subpatterns(av: Any) -> Iterator[sre_parser.SubPattern]:
    """The groups, branches and lookarounds inside one item of the parse tree."""
    if isinstance(av, sre_parser.SubPattern):
        yield av
    elif isinstance(av, tuple | list):
        for part in av:
            yield from _subpatterns(part)


@functools.lru_cache(maxsize=512)
def compiled(pattern: str, ignore_case: bool = False) -> regex.Pattern[str]:
    """The compiled pattern; ValueError with the reason when it is not usable."""
    problem = pattern_problem(pattern)
    if problem:
        raise ValueError(f"pattern {pattern[:80]!r} {problem}")
    return regex.compile(pattern, regex.V0 | (regex.IGNORECASE if ignore_case else 0))


def search(pattern: str, text: str, *, ignore_case: bool = False, fullmatch: bool = False) -> bool:
    """Whether ``pattern`` occurs in ``text`` (or is all of it); TimeLimit past the time limit."""
    compiled_pattern = compiled(pattern, ignore_case)
    match = compiled_pattern.fullmatch if fullmatch else compiled_pattern.search
    try:
        return match(text, timeout=_seconds_left()) is not None
    except TimeoutError:
        raise TimeLimit(f"pattern {pattern[:80]!r} took too long on this text") from None


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """One deadline for every match (and :func:`check_time`) inside the block."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_time() -> None:
    """TimeLimit when the enclosing time_limit() has run out; a no-op outside one."""
    _seconds_left()


def _seconds_left() -> float:
    deadline = _DEADLINE.get()
    if deadline is None:
        return MATCH_TIMEOUT_S
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeLimit("the check ran past its time limit")
    return min(MATCH_TIMEOUT_S, left)
