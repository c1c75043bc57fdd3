"""Held-out evaluation: sample once per item at a given temperature, report pass rates.

`judged_batches` is the loop an evaluation job runs (k samples per task, batch by batch):
each batch's verification runs on threads while the next batch generates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from training import metric_catalogue as metric
from training.config import SamplingConfig
from training.episodes import EnvironmentSpec, play
from training.generation import Generator, HFGenerator
from training.interfaces import Item, RewardFn, RewardResult
from training.metrics import success_breakdown
from training.prompting import RAW_FORMAT, PromptFormat, answers_only
from training.verification import Verification, start_verification

EVAL_PROMPTS_PER_BATCH = 64
"""Tasks per generate call in an evaluation job (times k rows). The decode loop's cost per
row falls as the batch grows; at 16 its per-step overhead was most of an evaluation's time."""
EVAL_VERIFICATION_WORKERS = 4
"""Threads judging a batch of an evaluation job (see `training.verification`)."""


@dataclass
class EvalResult:
    success: float
    breakdown: dict[str, float]
    """`success/<family>` and `success/<family>/d<difficulty>` pass rates."""
    errors: dict[str, int]
    n: int
    turns: float | None = None
    """Multi-turn evaluations: assistant messages per episode, averaged; None otherwise."""

    def metrics(self, prefix: str = metric.EVAL_PREFIX) -> dict[str, float]:
        out = {f"{prefix}{key}": value for key, value in self.breakdown.items()}
        if self.turns is not None:
            out[f"{prefix}{metric.EPISODE_TURNS}"] = self.turns
        return out


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
    prompt_format: PromptFormat = RAW_FORMAT,
) -> EvalResult:
    """One completion per item, prompted and judged as `prompt_format` says. Sampling uses
    its own seeded RNG (forked), so evaluating in the middle of training neither perturbs
    the run nor varies between calls."""
    generator = HFGenerator(model, tokenizer, prompt_format)
    judge = answers_only(reward_fn, prompt_format)
    sampling = SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature)
    results = []
    device = next(model.parameters()).device
    devices = [device] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        for start in range(0, len(items), batch_size):
            chunk = items[start : start + batch_size]
            out = generator.generate([it.prompt for it in chunk], sampling)
            results += judge(chunk, out.texts)
    breakdown = success_breakdown(items, results)
    errors = Counter(r.error_type for r in results if r.error_type)
    return EvalResult(breakdown.pop(metric.SUCCESS), breakdown, dict(errors), len(items))


def evaluate_episodes(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    items: Sequence[Item],
    spec: EnvironmentSpec,
    *,
    temperature: float = 1.0,
    batch_size: int = 256,
    seed: int = 0,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> EvalResult:
    """One episode per item, as `evaluate` samples (its own seeded RNG); success is the
    episodes' pass rate, `turns` their mean number of assistant messages."""
    generator = HFGenerator(model, tokenizer, prompt_format)
    sampling = SamplingConfig(
        max_new_tokens=spec.limits.max_tokens_per_turn, temperature=temperature
    )
    device = next(model.parameters()).device
    results: list[RewardResult] = []
    turns: list[int] = []
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        for start in range(0, len(items), batch_size):
            chunk = items[start : start + batch_size]
            played = play(generator, tokenizer, prompt_format, spec, chunk, sampling, device)
            results += spec.reward_fn(chunk, played.records)
            turns += [record.turns for record in played.records]
    breakdown = success_breakdown(items, results)
    errors = Counter(r.error_type for r in results if r.error_type)
    success = breakdown.pop(metric.SUCCESS)
    return EvalResult(success, breakdown, dict(errors), len(items), sum(turns) / len(turns))


def judged_batches(
    generator: Generator,
    items: Sequence[Item],
    reward_fn: RewardFn,
    sampling: SamplingConfig,
    k: int,
    *,
    prompts_per_batch: int,
    seed_of: Callable[[int], int],
    workers: int = 4,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> Iterator[tuple[Sequence[Item], list[RewardResult]]]:
    """Per batch of `prompts_per_batch` items, in order: the batch and its k * len(batch)
    results, rows i*k .. i*k+k-1 for item i.

    The generator is seeded with `seed_of(start)` (start: the batch's first index) before each
    batch, so a batch samples the same whatever ran before it. A batch is yielded once the next
    one has generated: its verification (on `workers` threads, mostly waiting on a sandbox or a
    judge) overlaps that generation instead of following it. `prompt_format` is the one the
    generator encodes with: the verifier reads each completion's answer after its reasoning."""
    judge = answers_only(reward_fn, prompt_format)
    pending: tuple[Sequence[Item], Verification] | None = None
    for start in range(0, len(items), prompts_per_batch):
        chunk = items[start : start + prompts_per_batch]
        torch.manual_seed(seed_of(start))
        rollout = generator.generate([it.prompt for it in chunk], sampling, n=k)
        rows = [item for item in chunk for _ in range(k)]
        verification = start_verification(judge, rows, rollout.texts, workers)
        if pending is not None:
            yield pending[0], pending[1].result()
        pending = (chunk, verification)
    if pending is not None:
        yield pending[0], pending[1].result()
