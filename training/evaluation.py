"""Held-out evaluation: sample once per item at a given temperature, report pass rates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from training.config import SamplingConfig
from training.generation import HFGenerator
from training.interfaces import Item, RewardFn
from training.metrics import success_breakdown


@dataclass
class EvalResult:
    success: float
    breakdown: dict[str, float]
    """`success/<family>` and `success/<family>/d<difficulty>` pass rates."""
    errors: dict[str, int]
    n: int

    def metrics(self, prefix: str = "eval/") -> dict[str, float]:
        return {f"{prefix}{key}": value for key, value in self.breakdown.items()}


def evaluate(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    items: Sequence[Item],
    reward_fn: RewardFn,
    *,
    temperature: float = 1.0,
    max_new_tokens: int = 16,
    batch_size: int = 256,
    seed: int = 0,
) -> EvalResult:
    """One completion per item. Sampling uses its own seeded RNG (forked), so evaluating in
    the middle of training neither perturbs the run nor varies between calls."""
    generator = HFGenerator(model, tokenizer)
    sampling = SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature)
    results = []
    device = next(model.parameters()).device
    devices = [device] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        for start in range(0, len(items), batch_size):
            chunk = items[start : start + batch_size]
            out = generator.generate([it.prompt for it in chunk], sampling)
            results += reward_fn(chunk, out.texts)
    breakdown = success_breakdown(items, results)
    errors = Counter(r.error_type for r in results if r.error_type)
    return EvalResult(breakdown.pop("success"), breakdown, dict(errors), len(items))
