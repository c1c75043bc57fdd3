"""The reward function on several threads, and in the background, with results in row order."""

import threading

import pytest

from training.interfaces import Item, RewardResult
from training.verification import start_verification, verify

ITEMS = [Item(f"p{i}") for i in range(24)]
TEXTS = [f"{'x' * (i % 5)}" for i in range(24)]


def by_length(items, completions) -> list[RewardResult]:
    return [RewardResult(float(len(text))) for text in completions]


class Meeting:
    """A reward function whose first two calls each wait for the other: it returns only when
    two of them run at the same time (a lone thread would break the barrier and raise)."""

    def __init__(self) -> None:
        self.barrier = threading.Barrier(2, timeout=30)
        self.calls, self.threads, self.lock = 0, set(), threading.Lock()

    def __call__(self, items, completions) -> list[RewardResult]:
        with self.lock:
            self.calls += 1
            first_two = self.calls <= 2
            self.threads.add(threading.get_ident())
        if first_two:
            self.barrier.wait()
        return by_length(items, completions)


def test_it_judges_slices_on_several_threads_at_once_in_row_order():
    reward_fn = Meeting()
    results = verify(reward_fn, ITEMS, TEXTS, workers=4)
    assert [r.reward for r in results] == [float(len(t)) for t in TEXTS]
    assert reward_fn.calls > 2 and len(reward_fn.threads) >= 2
    assert threading.get_ident() not in reward_fn.threads


def test_it_calls_the_reward_function_once_in_this_thread_with_one_worker():
    calls = []

    def reward_fn(items, completions):
        calls.append((threading.get_ident(), len(items)))
        return by_length(items, completions)

    assert [r.reward for r in verify(reward_fn, ITEMS, TEXTS, workers=1)] == [
        float(len(t)) for t in TEXTS
    ]
    assert calls == [(threading.get_ident(), len(ITEMS))]


def test_it_verifies_in_the_background_until_the_result_is_asked_for():
    release = threading.Event()

    def reward_fn(items, completions):
        release.wait(30)
        return by_length(items, completions)

    pending = start_verification(reward_fn, ITEMS, TEXTS, workers=1)
    assert not any(part.done() for part in pending.slices)  # returned while it still waits
    release.set()
    assert [r.reward for r in pending.result()] == [float(len(t)) for t in TEXTS]


def test_it_says_when_the_reward_function_miscounts_and_passes_on_its_errors():
    def short(items, completions):
        return by_length(items, completions)[1:]

    def broken(items, completions):
        raise RuntimeError("verifier down")

    for workers in (1, 4):
        with pytest.raises(ValueError, match="results for"):
            verify(short, ITEMS, TEXTS, workers)
        with pytest.raises(RuntimeError, match="verifier down"):
            verify(broken, ITEMS, TEXTS, workers)
