"""A procedural task that a tiny model can learn on a CPU: sort a list of digits.

Difficulty is the list length. The flawed teacher drops duplicate digits half the time, so
a model fine-tuned on it can sometimes, but not reliably, sort lists with repeats; that gap
is what RL on the verified reward closes.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

from training.interfaces import Item, RewardResult

FAMILY = "sort_digits"


def make_item(digits: str, answer: str | None = None) -> Item:
    return Item(
        prompt=f"sort {digits}=",
        payload={"digits": digits},
        family=FAMILY,
        difficulty=len(digits),
        answer=answer,
    )


def flawed_answer(digits: str, rng: random.Random, drop_rate: float = 0.5) -> str:
    """The teacher's answer: sorted, but with duplicates dropped `drop_rate` of the time."""
    if len(set(digits)) < len(digits) and rng.random() < drop_rate:
        return "".join(sorted(set(digits)))
    return "".join(sorted(digits))


class DigitSortSampler:
    """Random digit lists with lengths in [min_len, max_len]; `teacher` fills `Item.answer`."""

    def __init__(
        self, min_len: int = 2, max_len: int = 6, seed: int = 0, teacher: str = "exact"
    ) -> None:
        if teacher not in ("exact", "flawed"):
            raise ValueError("teacher: must be exact or flawed")
        self.min_len, self.max_len, self.teacher = min_len, max_len, teacher
        self.rng = random.Random(seed)
        self.seen = 0

    def sample(self, n: int) -> list[Item]:
        return [self._one() for _ in range(n)]

    def _one(self, length: int | None = None) -> Item:
        if length is None:
            length = self.rng.randint(self.min_len, self.max_len)
        digits = "".join(self.rng.choice("0123456789") for _ in range(length))
        if self.teacher == "flawed":
            return make_item(digits, flawed_answer(digits, self.rng))
        return make_item(digits, "".join(sorted(digits)))

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        self.seen += len(results)

    def state_dict(self) -> dict[str, Any]:
        return {"rng": self.rng.getstate(), "seen": self.seen}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
        self.seen = state["seen"]


class DigitSortCurriculum(DigitSortSampler):
    """`DigitSortSampler` that draws the lengths the model is learning at: each length keeps
    the pass rate of its last `window` verified completions, and one whose rate lies inside
    `band` is drawn with weight 1, one outside (mastered, or still out of reach) with weight
    `floor`, so it is still seen and its rate can move back into the band. A length not yet
    seen counts as inside. Groups at a length passed always or never have no reward spread
    and teach nothing; this keeps most groups away from them."""

    def __init__(
        self,
        min_len: int = 2,
        max_len: int = 8,
        seed: int = 0,
        teacher: str = "exact",
        band: tuple[float, float] = (0.1, 0.9),
        floor: float = 0.1,
        window: int = 128,
    ) -> None:
        super().__init__(min_len, max_len, seed, teacher)
        if not 0 <= band[0] < band[1] <= 1:
            raise ValueError("band: must be (low, high) with 0 <= low < high <= 1")
        if not 0 < floor <= 1:
            raise ValueError("floor: must be in (0, 1]")
        self.band, self.floor, self.window = band, floor, window
        self.lengths = list(range(min_len, max_len + 1))
        self.verdicts: dict[int, deque[bool]] = {k: deque(maxlen=window) for k in self.lengths}

    def pass_rate(self, length: int) -> float | None:
        seen = self.verdicts[length]
        return sum(seen) / len(seen) if seen else None

    def weights(self) -> list[float]:
        low, high = self.band
        rates = [self.pass_rate(k) for k in self.lengths]
        return [1.0 if r is None or low <= r <= high else self.floor for r in rates]

    def sample(self, n: int) -> list[Item]:
        lengths = self.rng.choices(self.lengths, weights=self.weights(), k=n)
        return [self._one(length) for length in lengths]

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        super().observe(items, results)
        for item, result in zip(items, results, strict=True):
            if item.difficulty in self.verdicts:
                self.verdicts[item.difficulty].append(result.passed)

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "verdicts": {k: list(v) for k, v in self.verdicts.items()}}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        for k, seen in state["verdicts"].items():
            self.verdicts[int(k)] = deque(seen, maxlen=self.window)


def held_out(n: int = 256, min_len: int = 2, max_len: int = 8, seed: int = 1234) -> list[Item]:
    """A fixed evaluation set (its seed differs from any training sampler's)."""
    return DigitSortSampler(min_len, max_len, seed=seed).sample(n)


def reward_fn(items: Sequence[Item], completions: Sequence[str]) -> list[RewardResult]:
    return [
        _judge(item.payload["digits"], text) for item, text in zip(items, completions, strict=True)
    ]


def pass_fail_reward_fn(items: Sequence[Item], completions: Sequence[str]) -> list[RewardResult]:
    """`reward_fn` without the partial credit: 1 for the sorted list, else 0. The credit for
    kept digits also rewards near misses that drop a duplicate, the teacher's own error."""
    return [
        RewardResult(float(r.passed), passed=r.passed, parts=r.parts, error_type=r.error_type)
        for r in reward_fn(items, completions)
    ]


def _judge(digits: str, text: str) -> RewardResult:
    """Outcome reward 1 for the sorted list; otherwise partial credit (up to 0.5) for the
    digits it kept, so a group whose samples all fail still ranks them (dropping fewer
    duplicates is closer)."""
    answer = text.strip()
    expected = "".join(sorted(digits))
    if not answer.isdigit():
        return RewardResult(
            0.0, parts={"format": 0.0, "correct": 0.0, "overlap": 0.0}, error_type="format"
        )
    overlap = sum((Counter(answer) & Counter(expected)).values()) / max(len(answer), len(expected))
    parts = {"format": 1.0, "correct": float(answer == expected), "overlap": overlap}
    if answer == expected:
        return RewardResult(1.0, passed=True, parts=parts)
    error = "length" if len(answer) != len(expected) else "order"
    return RewardResult(0.5 * overlap, parts=parts, error_type=error)


def corpus(n: int = 2000, seed: int = 0) -> list[str]:
    """Text to train the tiny tokenizer on."""
    sampler = DigitSortSampler(1, 10, seed=seed)
    return [item.prompt + (item.answer or "") for item in sampler.sample(n)]
