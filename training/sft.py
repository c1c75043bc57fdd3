"""Supervised fine-tuning on reference answers: cross-entropy on completion tokens only."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import torch
from transformers import PreTrainedTokenizerBase

from training import metric_catalogue as metric
from training.generation import Rollout
from training.losses import masked_sum, token_logprobs
from training.metrics import MetricLists
from training.prompting import RAW_FORMAT, PromptFormat, encode_batch, end_of_turn_ids
from training.step import Run, completion_logits, micro_batches, sample_items, update


def train_step(run: Run) -> dict[str, float]:
    items = sample_items(run)
    answers = [it.answer for it in items if it.answer is not None]
    if len(answers) != len(items):
        raise ValueError("SFT needs items with an `answer` (reference completion)")
    batch = teacher_rollout(
        run.tokenizer,
        [it.prompt for it in items],
        answers,
        run.accelerator.device,
        run.prompt_format,
    )
    return sft_on(run, batch)


def sft_on(run: Run, batch: Rollout) -> dict[str, float]:
    """One pass over `batch` with the configured micro-batching; mean token NLL."""
    log = MetricLists()
    for micro in micro_batches(len(batch.texts), run.config):
        n_tokens = int(batch.completion_mask[torch.cat(micro)].sum())
        update(run, micro, partial(nll_loss, run, batch, n_tokens), log)
    n = batch.completion_mask.sum().item()
    return {**log.flush(), metric.COMPLETION_TOKENS: n, metric.COMPLETIONS: len(batch.texts)}


def nll_loss(
    run: Run, batch: Rollout, n_tokens: int, rows: torch.Tensor
) -> tuple[torch.Tensor, dict[str, float]]:
    mb = batch.select(rows)
    logits, _ = completion_logits(run.model, mb, temperature=1.0)
    nll = -token_logprobs(logits, mb.completion_ids)  # (b, C)
    loss = masked_sum(nll, mb.completion_mask) / n_tokens
    return loss, {
        metric.LOSS_SFT: (
            masked_sum(nll.detach(), mb.completion_mask) / mb.completion_mask.sum()
        ).item()
    }


def teacher_rollout(
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    answers: Sequence[str],
    device: torch.device,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> Rollout:
    """Prompts left-padded (encoded as `prompt_format` says) and answers right-padded, each
    ended by EOS, or in chat format by the template's end-of-turn token: shaped like a
    sampled rollout."""
    enc = encode_batch(tokenizer, prompts, prompt_format)
    end = end_of_turn_ids(tokenizer)[:1] if prompt_format.is_chat else []
    stop = end or [tokenizer.eos_token_id]
    targets = [tokenizer(a, add_special_tokens=False)["input_ids"] + stop for a in answers]
    width = max(len(t) for t in targets)
    ids = torch.full((len(targets), width), tokenizer.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(targets), width), dtype=torch.long)
    for i, t in enumerate(targets):
        ids[i, : len(t)] = torch.tensor(t)
        mask[i, : len(t)] = 1
    return Rollout(
        enc["input_ids"].to(device),
        enc["attention_mask"].to(device),
        ids.to(device),
        mask.to(device),
        list(answers),
        torch.zeros(len(targets), dtype=torch.bool, device=device),
    )
