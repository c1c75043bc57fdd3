"""Running the reward function: in parallel across threads, and in the background.

Verification is mostly waiting (a sandboxed process running model-written code, a SQL box,
a judge model), so threads serve it well: the sandbox and the SQL box hand each concurrent
caller its own worker process, and the GIL is released while a thread waits on one. A
process pool would gain nothing for them and could not take the closures reward functions
usually are.

`verify` splits a step's completions into slices, judges them on up to `workers` threads
and returns the results in row order; `start_verification` does the same without waiting,
for a step that verifies while the next one generates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from training.interfaces import Item, RewardFn, RewardResult

SLICES_PER_WORKER = 4
"""Slices per thread: one slow completion (a timeout) then holds up a quarter of a thread's
share rather than all of it, while batched reward functions still get sizable slices."""


class Verification:
    """A verification under way: `result()` waits for it and returns one result per row."""

    def __init__(self, slices: list[Future[list[RewardResult]]], rows: int) -> None:
        self.slices = slices
        self.rows = rows

    def result(self) -> list[RewardResult]:
        results = [r for part in self.slices for r in part.result()]  # re-raises a slice's error
        return _counted(results, self.rows)


def start_verification(
    reward_fn: RewardFn, items: Sequence[Item], texts: Sequence[str], workers: int
) -> Verification:
    """Judge (items[i], texts[i]) on up to `workers` background threads; returns at once."""
    workers = max(1, workers)
    pool = ThreadPoolExecutor(workers, thread_name_prefix="verify")
    parts = 1 if workers == 1 else workers * SLICES_PER_WORKER  # one thread: one call
    size = max(1, math.ceil(len(items) / parts))
    slices = [
        pool.submit(reward_fn, list(items[i : i + size]), list(texts[i : i + size]))
        for i in range(0, len(items), size)
    ]
    # The threads finish the submitted slices and then exit; nothing has to close the pool.
    pool.shutdown(wait=False)
    return Verification(slices, len(items))


def verify(
    reward_fn: RewardFn, items: Sequence[Item], texts: Sequence[str], workers: int
) -> list[RewardResult]:
    """`reward_fn(items, texts)`, on `workers` threads when that is more than one."""
    if workers <= 1:
        return _counted(reward_fn(items, texts), len(items))
    return start_verification(reward_fn, items, texts, workers).result()


def _counted(results: list[RewardResult], rows: int) -> list[RewardResult]:
    if len(results) != rows:
        raise ValueError(f"the reward function gave {len(results)} results for {rows} rows")
    return results
