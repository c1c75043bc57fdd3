"""Per-step metrics, named like TRL's where TRL has one, in the project's namespaced scheme."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Sequence
from contextlib import contextmanager

import torch

from training import metric_catalogue as metric
from training.generation import Rollout
from training.interfaces import Item, RewardResult
from training.losses import masked_mean

TOOL_CALL_ERRORS = ("tool_call_parse", "tool_error")
"""The per-turn errors that count as tool-call errors (the names
`tasks_app.environments.base` gives them)."""


class MetricLists:
    """Values collected as lists per key and averaged NaN-free when flushed (as TRL does);
    a key ending in `/max` or `/min` keeps the extreme instead (TRL's nanmax / nanmin)."""

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
                out[key] = reduce_values(key, finite)
        self.values.clear()
        return out


def reduce_values(key: str, values: list[float]) -> float:
    if key.endswith("/max"):
        return max(values)
    if key.endswith("/min"):
        return min(values)
    return sum(values) / len(values)


def logprob_gap(
    train_logps: torch.Tensor, sampling_logps: torch.Tensor | None, mask: torch.Tensor
) -> dict[str, float]:
    """`logprob_gap/mean` and `/max`: |log pi_train - log pi_sampler| per completion token
    (B, C), over `mask`. How far the generator's probabilities are from the training forward
    pass's on the same tokens; ~0 in float32 for both backends, larger in bf16 or with a
    different inference engine (TRL's `sampling/sampling_logp_difference/*`)."""
    if sampling_logps is None or not mask.any():
        return {}
    gap = (train_logps.detach() - sampling_logps).abs()[mask.bool()]
    return {metric.LOGPROB_GAP_MEAN: gap.mean().item(), metric.LOGPROB_GAP_MAX: gap.max().item()}


def tis_metrics(weights: torch.Tensor, mask: torch.Tensor, cap: float) -> dict[str, float]:
    """Mean truncated importance weight over the masked tokens, and the share cut at the cap;
    `weights` is (B, T) or (B, 1) per sequence."""
    weights = weights.expand_as(mask)
    return {
        metric.TIS_WEIGHT_MEAN: masked_mean(weights, mask).item(),
        metric.TIS_TRUNCATED_FRAC: masked_mean((weights >= cap).float(), mask).item(),
    }


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
        return {metric.PHASE_S.format(phase=phase): s for phase, s in self.seconds.items()}


def reward_metrics(
    items: Sequence[Item], results: Sequence[RewardResult], rewards: torch.Tensor
) -> dict[str, float]:
    """reward/mean, reward/std, reward/<part>, success, success/<family>[/d<k>], errors/<type>,
    and verdicts/judge_flip_rate when the step has judged rollouts (`judge_flip_rate`)."""
    out = {
        metric.REWARD_MEAN: rewards.mean().item(),
        metric.REWARD_STD: rewards.std().item() if len(rewards) > 1 else 0.0,
    }
    parts: dict[str, list[float]] = defaultdict(list)
    for result in results:
        for name, value in result.parts.items():
            parts[name].append(value)
    out.update({metric.REWARD_PART.format(part=name): sum(v) / len(v) for name, v in parts.items()})
    out.update(success_breakdown(items, results))
    errors: dict[str, int] = defaultdict(int)
    for result in results:
        if result.error_type:
            errors[result.error_type] += 1
    out.update(
        {metric.ERRORS.format(error_type=name): n / len(results) for name, n in errors.items()}
    )
    out[metric.REWARD_UNSCORABLE_FRAC] = sum(r.reward is None for r in results) / len(results)
    flip_rate = judge_flip_rate(results)
    if flip_rate is not None:  # no judged rollout: nothing logged, the signal stays unchecked
        out[metric.JUDGE_FLIP_RATE] = flip_rate
    return out


JUDGE_STAGE = "judge"
"""The `stage` of a model-judge layer in a layered verifier's `details["layers"]` (the
platform's `Stage.JUDGE`); every other stage is rule-based."""


def judge_flip_rate(results: Sequence[RewardResult]) -> float | None:
    """Share of judged rollouts whose judge verdict disagrees with the rule-based one; None
    when no rollout was judged.

    A rollout counts when its verifier ran (did not skip) at least one judge layer and one
    rule-based layer (`details["layers"]`, one `{stage, kind, passed, skipped}` dict each;
    the extraction step, kind `extract`, gates both and is neither). Each side's verdict is
    pass when every layer of it that ran passed. Rules that stop at their first failure skip
    a judge after them, so those rollouts are not judged and do not count.
    """
    judged = flips = 0
    for result in results:
        ran = [
            layer
            for layer in (result.details or {}).get("layers", [])
            if not layer.get("skipped") and layer.get("kind") != "extract"
        ]
        judge = [bool(layer.get("passed")) for layer in ran if layer.get("stage") == JUDGE_STAGE]
        rules = [bool(layer.get("passed")) for layer in ran if layer.get("stage") != JUDGE_STAGE]
        if judge and rules:
            judged += 1
            flips += all(judge) != all(rules)
    return flips / judged if judged else None


def success_breakdown(items: Sequence[Item], results: Sequence[RewardResult]) -> dict[str, float]:
    """Pass rate overall, by family and by family x difficulty."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for item, result in zip(items, results, strict=True):
        groups[metric.SUCCESS].append(result.passed)
        groups[metric.SUCCESS_FAMILY.format(family=item.family)].append(result.passed)
        level = metric.SUCCESS_FAMILY_LEVEL.format(family=item.family, difficulty=item.difficulty)
        groups[level].append(result.passed)
    return {key: sum(v) / len(v) for key, v in groups.items()}


def zero_std_breakdown(
    items: Sequence[Item], flat: torch.Tensor, group_size: int
) -> dict[str, float]:
    """Share of groups without learning signal by family x difficulty,
    ``frac_reward_zero_std/<family>/d<k>``: a curriculum shows where it wastes its samples.

    ``flat`` is ``losses.zero_std_groups``'s (B,) mask; the G rows of a group answer one
    prompt, so the group's first row names its family and level.
    """
    groups: dict[str, list[bool]] = defaultdict(list)
    for start in range(0, len(items), group_size):
        item = items[start]
        key = metric.FRAC_REWARD_ZERO_STD_LEVEL.format(
            family=item.family, difficulty=item.difficulty
        )
        groups[key].append(bool(flat[start]))
    return {key: sum(v) / len(v) for key, v in groups.items()}


def completion_metrics(rollout: Rollout) -> dict[str, float]:
    lengths = rollout.lengths.float()
    return {
        metric.COMPLETIONS_MEAN_LENGTH: lengths.mean().item(),
        metric.COMPLETIONS_MAX_LENGTH: lengths.max().item(),
        metric.COMPLETIONS_MIN_LENGTH: lengths.min().item(),
        metric.COMPLETIONS_CLIPPED_RATIO: rollout.truncated.float().mean().item(),
        **reasoning_metrics(rollout),
    }


def reasoning_metrics(rollout: Rollout) -> dict[str, float]:
    """Mean tokens of the completions' reasoning sections, in chat format (none in raw)."""
    if rollout.reasoning_lengths is None:
        return {}
    return {metric.COMPLETIONS_REASONING_TOKENS: rollout.reasoning_lengths.float().mean().item()}


def episode_metrics(
    errors: Sequence[Sequence[str | None]],
    tokens: Sequence[int],
    ended_by: Sequence[str],
    results: Sequence[RewardResult],
) -> dict[str, float]:
    """Turns, tokens, per-turn errors, how episodes ended and success by turns used, over a
    step's episodes (`errors`: each episode's per-turn verdicts)."""
    turns = [len(e) for e in errors]
    verdicts = [v for e in errors for v in e]
    out = {
        metric.EPISODE_TURNS: sum(turns) / len(turns),
        metric.EPISODE_TOKENS: sum(tokens) / len(tokens),
        metric.EPISODE_TURN_ERRORS: sum(v is not None for v in verdicts) / max(len(verdicts), 1),
        metric.EPISODE_TOOL_CALL_ERRORS: sum(v in TOOL_CALL_ERRORS for v in verdicts) / len(turns),
    }
    for kind in sorted({v for v in verdicts if v is not None}):
        share = sum(v == kind for v in verdicts) / len(verdicts)
        out[metric.EPISODE_TURN_ERROR_TYPE.format(error_type=kind)] = share
    for reason in sorted(set(ended_by)):
        share = sum(r == reason for r in ended_by) / len(ended_by)
        out[metric.EPISODE_ENDED_BY.format(reason=reason)] = share
    by_turns: dict[int, list[bool]] = defaultdict(list)
    for n, result in zip(turns, results, strict=True):
        by_turns[n].append(result.passed)
    for n, passed in sorted(by_turns.items()):
        out[metric.EPISODE_SUCCESS_BY_TURNS.format(turns=n)] = sum(passed) / len(passed)
    return out
