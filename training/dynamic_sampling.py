"""DAPO dynamic sampling (Yu et al. 2025, arXiv:2503.14476, section 3.2): over-sample and refill.

A group whose G rewards are all equal has zero advantage everywhere and teaches nothing.
Instead of only dropping such groups (which shrinks the batch as the model gets good or
bad at a level), `refill` draws more prompts, generates and verifies their groups, and
repeats until every process has its share of `prompts_per_step` groups with mixed rewards
or `max_refill_rounds` extra rounds have run. The trained batch is then exactly that share:
mixed groups first, padded with flat ones (which count for nothing) when the bound is hit,
so every process runs the same forward and backward passes.

Every process runs the same number of rounds of the same size: the decision to go on is
taken on counts gathered from all of them, and each round draws one global list from the
(identical) samplers, as the first round does. Every verified completion is observed by the
sampler, kept or not, and the step's reward metrics cover every generated completion.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import torch
import torch.nn.functional as F

from training import metric_catalogue as metric
from training.generation import Rollout
from training.losses import normalize_and_clip, zero_std_groups
from training.metrics import zero_std_breakdown
from training.step import Batch, Run, raw_rewards, rollout, rollout_logprobs, rollout_metrics

MIN_MIXED_SHARE = 1 / 8
"""The share of mixed groups a refill round is sized for when fewer have been seen this
step: a round draws at most 8 prompts for each group still missing."""


def refill(run: Run, first: Batch) -> Batch:
    """`first` topped up to its number of groups with mixed rewards; see the module doc."""
    config, acc = run.config, run.accelerator
    quota = len(first.items) // config.group_size  # this process's share of prompts_per_step
    rounds = [first]
    while True:
        counts = _gathered_counts(run, rounds, quota)  # (processes, 3): quota, mixed, groups
        missing = int((counts[:, 0] - counts[:, 1]).clamp(min=0).max())
        if missing == 0 or len(rounds) > config.max_refill_rounds:
            break
        share = float(counts[:, 1].sum() / counts[:, 2].sum())
        per_process = math.ceil(missing / max(share, MIN_MIXED_SHARE))
        drawn = run.sampler.sample(per_process * acc.num_processes)
        rounds.append(
            rollout(run, drawn[acc.process_index :: acc.num_processes], config.group_size)
        )
    batch = _trained_batch(run, rounds, quota)
    batch.metrics.update(
        {
            metric.DYNAMIC_FILL_RATE: float(counts[:, 1].clamp(max=counts[:, 0]).sum())
            / float(counts[:, 0].sum()),
            metric.DYNAMIC_ROUNDS: len(rounds),
            metric.DYNAMIC_PROMPTS_GENERATED: int(counts[:, 2].sum()),
        }
    )
    return batch


def _mixed(run: Run, batch: Batch) -> torch.Tensor:
    """(B,) True on the rows of groups whose raw rewards are not all equal."""
    raw = raw_rewards(run.config, batch.results, batch.rewards.device)
    return ~zero_std_groups(raw, run.config.group_size)


def _gathered_counts(run: Run, rounds: list[Batch], quota: int) -> torch.Tensor:
    group_size = run.config.group_size
    mixed = sum(int(_mixed(run, b).sum()) for b in rounds) // group_size
    groups = sum(len(b.items) for b in rounds) // group_size
    mine = torch.tensor([[quota, mixed, groups]], device=run.accelerator.device)
    return run.accelerator.gather(mine) if run.accelerator.num_processes > 1 else mine


def _trained_batch(run: Run, rounds: list[Batch], quota: int) -> Batch:
    """`quota` groups from `rounds`, mixed ones first; metrics over every generated row."""
    config, group_size = run.config, run.config.group_size
    items = [item for b in rounds for item in b.items]
    results = [result for b in rounds for result in b.results]
    everything = concat_rollouts([b.rollout for b in rounds], run.tokenizer.pad_token_id)
    raw = raw_rewards(config, results, everything.completion_ids.device)
    mixed_rows = torch.cat([_mixed(run, b) for b in rounds])  # (rows,)
    mixed = mixed_rows[::group_size]  # (groups,)
    order = torch.cat([mixed.nonzero()[:, 0], (~mixed).nonzero()[:, 0]])[:quota]
    rows = (order[:, None] * group_size + torch.arange(group_size)).flatten()
    metrics = rollout_metrics(items, results, raw, everything)
    # The zero-std shares are of every generated group, the replaced ones included.
    metrics[metric.FRAC_REWARD_ZERO_STD] = 1 - mixed.float().mean().item()
    metrics.update(zero_std_breakdown(items, ~mixed_rows, group_size))
    batch = Batch(
        [items[i] for i in rows.tolist()],
        everything.select(rows),
        [results[i] for i in rows.tolist()],
        normalize_and_clip(raw[rows], config.reward_normalization, config.reward_clip),
        metrics,
        group_size,
    )
    if any(b.behaviour_logps is not None for b in rounds):
        # Refill rounds were sampled with the current weights: their log-probs now are theirs.
        logps = [
            b.behaviour_logps
            if b.behaviour_logps is not None
            else rollout_logprobs(run, run.model, b.rollout)
            for b in rounds
        ]
        batch.behaviour_logps = _concat_padded(logps, 0, left=False)[rows]
    run.batch = batch
    return batch


def concat_rollouts(parts: list[Rollout], pad_id: int) -> Rollout:
    """One rollout of `parts`' rows: prompt tensors padded on the left to the widest, the
    (B, C) completion tensors on the right, token ids with `pad_id` and the rest with 0."""
    values: dict[str, Any] = {}
    for spec in dataclasses.fields(Rollout):
        column = [getattr(part, spec.name) for part in parts]
        if any(value is None for value in column):  # an optional field one backend leaves out
            values[spec.name] = None
        elif isinstance(column[0], list):
            values[spec.name] = [x for part in column for x in part]
        elif column[0].dim() == 1:
            values[spec.name] = torch.cat(column)
        else:
            fill = pad_id if spec.name.endswith("_ids") else 0
            values[spec.name] = _concat_padded(column, fill, left=spec.name.startswith("prompt"))
    return Rollout(**values)


def _concat_padded(tensors: list[torch.Tensor], fill: int, left: bool) -> torch.Tensor:
    width = max(t.shape[1] for t in tensors)
    padded = [
        F.pad(t, (width - t.shape[1], 0) if left else (0, width - t.shape[1]), value=fill)
        for t in tensors
    ]
    return torch.cat(padded)
