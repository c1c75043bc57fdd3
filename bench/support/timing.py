"""Timed passes over verification items, shared by a bench and the processes it starts.

Imports nothing of the project, so a process running another revision's sandbox (see
``trusted_side.py``) times its passes exactly as the bench times its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Verdict = Callable[[Any, str], bool]  # (problem, solution source) -> passed
Pass = tuple[list[tuple[bool, float]], float]  # (passed, seconds) per item, wall seconds


def timed_once(verdict: Verdict, items: Sequence[Any], workers: int, group: int = 1) -> Pass:
    """Every item verified once by ``workers`` threads, ``group`` items in a row per thread.

    An item is a sequence whose first two entries are the problem and the solution.
    """

    def one(item: Any) -> tuple[bool, float]:
        start = time.perf_counter()
        passed = verdict(item[0], item[1])
        return passed, time.perf_counter() - start

    def in_order(chunk: Sequence[Any]) -> list[tuple[bool, float]]:
        return [one(item) for item in chunk]

    chunks = [items[i : i + group] for i in range(0, len(items), group)]
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        results = [r for chunk in pool.map(in_order, chunks) for r in chunk]
    return results, time.perf_counter() - start
