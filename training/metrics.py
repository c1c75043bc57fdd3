"""Per-step metrics, named like TRL's where TRL has one, in the project's namespaced scheme."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Sequence
from contextlib import contextmanager

import torch

from training.generation import Rollout
from training.interfaces import Item, RewardResult


class MetricLists:
    """Values collected as lists per key and averaged NaN-free when flushed (as TRL does)."""

    def __init__(self) -> None:
        self.values: dict[str, list[float]] = defaultdict(list)

    def add(self, **metrics: float | torch.Tensor) -> None:
        for key, value in metrics.items():
            self.values[key].append(float(value))

    def flush(self) -> dict[str, float]:
        out = {}
        for key, values in self.values.items():
            finite = [v for v in values if not math.isnan(v)]
            if finite:
                out[key] = sum(finite) / len(finite)
        self.values.clear()
        return out


class Timer:
    """Wall-clock seconds per phase: `with timer("generation"): ...`."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, phase: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - start

    def metrics(self) -> dict[str, float]:
        return {f"time/{phase}_s": s for phase, s in self.seconds.items()}


def reward_metrics(
    items: Sequence[Item], results: Sequence[RewardResult], rewards: torch.Tensor
) -> dict[str, float]:
    """reward/mean, reward/std, reward/<part>, success, success/<family>[/d<k>], errors/<type>."""
    out = {
        "reward/mean": rewards.mean().item(),
        "reward/std": rewards.std().item() if len(rewards) > 1 else 0.0,
    }
    parts: dict[str, list[float]] = defaultdict(list)
    for result in results:
        for name, value in result.parts.items():
            parts[name].append(value)
    out.update({f"reward/{name}": sum(v) / len(v) for name, v in parts.items()})
    out.update(success_breakdown(items, results))
    errors: dict[str, int] = defaultdict(int)
    for result in results:
        if result.error_type:
            errors[result.error_type] += 1
    out.update({f"errors/{name}": n / len(results) for name, n in errors.items()})
    out["reward/unscorable_frac"] = sum(r.reward is None for r in results) / len(results)
    return out


def success_breakdown(items: Sequence[Item], results: Sequence[RewardResult]) -> dict[str, float]:
    """Pass rate overall, by family and by family x difficulty."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for item, result in zip(items, results, strict=True):
        groups["success"].append(result.passed)
        groups[f"success/{item.family}"].append(result.passed)
        groups[f"success/{item.family}/d{item.difficulty}"].append(result.passed)
    return {key: sum(v) / len(v) for key, v in groups.items()}


def completion_metrics(rollout: Rollout) -> dict[str, float]:
    lengths = rollout.lengths.float()
    return {
        "completions/mean_length": lengths.mean().item(),
        "completions/max_length": lengths.max().item(),
        "completions/min_length": lengths.min().item(),
        "completions/clipped_ratio": rollout.truncated.float().mean().item(),
    }
