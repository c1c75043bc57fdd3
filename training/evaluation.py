"""Held-out evaluation: sample once per item at a given temperature, report pass rates.

`judged_batches` is the loop an evaluation job runs (k samples per task, batch by batch):
each batch's verification runs on threads while the next batch generates. A family played
as an environment runs `judged_episode_batches` instead: k episodes per task, each kept as
`episode_summary` (passed, turns used, tokens, turn and tool errors) beside the task's turn
budget and the `agreement` of its repeated episodes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from training import metric_catalogue as metric
from training.config import SamplingConfig
from training.episodes import EnvironmentSpec, EpisodeRecord, TurnLimits, play
from training.generation import Generator, HFGenerator
from training.interfaces import Item, RewardFn, RewardResult
from training.metrics import TOOL_CALL_ERRORS, success_breakdown
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


# --- episodes in an evaluation job ------------------------------------------------------------


def turn_budget(item: Item, limits: TurnLimits) -> int:
    """The turns an episode of `item` may use: the limits' `max_turns`, or fewer where the
    task carries its own budget in its expected data's `max_turns` (a guessing game's)."""
    own = item.payload.get("max_turns") if isinstance(item.payload, dict) else None
    if isinstance(own, int) and not isinstance(own, bool) and own > 0:
        return min(limits.max_turns, own)
    return limits.max_turns


def episode_summary(record: EpisodeRecord, result: RewardResult) -> dict[str, Any]:
    """What an evaluation keeps of one judged episode: whether it passed, the assistant turns
    it used, its tokens (after the opening, the environment's included; and the assistant's),
    its turns with an error (`turn_errors`) and with a tool-call error (`tool_errors`), and
    why it ended."""
    return {
        "passed": bool(result.passed),
        "turns": record.turns,
        "tokens": record.tokens,
        "assistant_tokens": record.assistant_tokens,
        "turn_errors": sum(e is not None for e in record.errors),
        "tool_errors": sum(e in TOOL_CALL_ERRORS for e in record.errors),
        "ended_by": record.ended_by,
    }


def agreement(passes: int, k: int) -> float | None:
    """Consistency of k repeated episodes of one task: the share of pairs of them with the
    same outcome (1.0 when all pass or all fail, lowest at an even split); None below 2."""
    if k < 2:
        return None
    return (passes * (passes - 1) + (k - passes) * (k - passes - 1)) / (k * (k - 1))


@dataclass
class EpisodeBatch:
    """One batch of an evaluation job on episodes: its tasks, and per task its k judged
    episodes (rows i*k .. i*k+k-1 of `results` and `records` for task i)."""

    items: Sequence[Item]
    results: list[RewardResult]
    records: list[EpisodeRecord]
    k: int

    def task_episodes(self, i: int, limits: TurnLimits) -> dict[str, Any]:
        """Task i's episodes as an evaluation stores them: its turn budget, each episode's
        `episode_summary`, and their `agreement`."""
        rows = range(i * self.k, (i + 1) * self.k)
        episodes = [episode_summary(self.records[r], self.results[r]) for r in rows]
        passes = sum(e["passed"] for e in episodes)
        return {
            "turn_budget": turn_budget(self.items[i], limits),
            "episodes": episodes,
            "agreement": agreement(passes, self.k),
        }


def judged_episode_batches(
    generator: Generator,
    tokenizer: PreTrainedTokenizerBase,
    items: Sequence[Item],
    spec: EnvironmentSpec,
    sampling: SamplingConfig,
    k: int,
    *,
    prompts_per_batch: int,
    seed_of: Callable[[int], int],
    device: torch.device,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> Iterator[EpisodeBatch]:
    """`judged_batches` for a family played as an environment: per batch of
    `prompts_per_batch` items, in order, k episodes of each (the engine's batched play, at the
    evaluation's temperature; each turn at most the limits' `max_tokens_per_turn`), each judged
    on its final state by `spec.reward_fn`. Seeded with `seed_of(start)` before each batch, so
    a batch plays the same whatever ran before it."""
    for start in range(0, len(items), prompts_per_batch):
        chunk = items[start : start + prompts_per_batch]
        rows = [item for item in chunk for _ in range(k)]
        torch.manual_seed(seed_of(start))
        played = play(generator, tokenizer, prompt_format, spec, rows, sampling, device)
        results = spec.reward_fn(rows, played.records)
        yield EpisodeBatch(chunk, results, played.records, k)
