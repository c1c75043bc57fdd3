"""PPO with a value head and GAE, for language models (Schulman et al. 2017; Ouyang et al.
2022; the cleanrl / "N implementation details of RLHF" recipe).

rollout -> per-token rewards (score at the last token, minus beta * KL per token) ->
values -> GAE(gamma, lambda) -> `num_epochs` passes of clipped policy + clipped value loss.
"""

from __future__ import annotations

from functools import partial

import torch

from training import metric_catalogue as metric
from training.config import PPOConfig
from training.losses import (
    clipped_surrogate,
    entropy_from_logits,
    gae,
    kl_k1,
    masked_mean,
    masked_sum,
    token_logprobs,
    truncated_is_weights,
    whiten,
)
from training.metrics import MetricLists, logprob_gap, tis_metrics
from training.step import (
    Batch,
    Run,
    completion_logits,
    micro_batches,
    reference,
    rollout,
    sample_items,
    update,
)


def train_step(run: Run) -> dict[str, float]:
    config: PPOConfig = run.config
    batch = rollout(run, sample_items(run), config.group_size)
    mask = batch.rollout.completion_mask.float()  # (B, C)
    old_logps, old_values, ref_logps = rollout_statistics(run, batch)

    # Per-token rewards: the verifier's score lands on the last completion token; the KL
    # penalty to the reference is spread over every token (Ziegler et al. 2019).
    last = (batch.rollout.lengths - 1).clamp(min=0)  # (B,)
    token_rewards = torch.zeros_like(mask)
    token_rewards[torch.arange(len(last)), last] = batch.rewards
    metrics = batch.metrics
    if ref_logps is not None:
        per_token_kl = kl_k1(old_logps, ref_logps)
        token_rewards = token_rewards - config.kl_coef * per_token_kl * mask
        metrics[metric.KL] = masked_mean(per_token_kl, mask).item()
    advantages, returns = gae(token_rewards, old_values, mask, config.gamma, config.lam)
    if config.whiten_advantages:
        advantages = whiten(advantages, mask)
    # One number per completion for the rollout record: its mean token advantage.
    batch.advantages = masked_mean(advantages, mask, dim=1)  # (B,)

    log = MetricLists()
    for _epoch in range(config.num_epochs):
        for micro in micro_batches(len(batch.items), config):
            n_tokens = int(mask[torch.cat(micro)].sum())
            update(
                run,
                micro,
                partial(ppo_loss, run, batch, old_logps, old_values, advantages, returns, n_tokens),
                log,
            )
    metrics.update(log.flush())
    metrics[metric.EXPLAINED_VARIANCE] = explained_variance(old_values, returns, mask)
    return metrics


@torch.no_grad()
def rollout_statistics(run: Run, batch: Batch):
    """Log-probs and values (B, C) of the sampling policy, and reference log-probs."""
    temperature = run.config.sampling.temperature
    logps, values, ref = [], [], []
    with run.accelerator.autocast():
        for rows in torch.arange(len(batch.items)).split(run.config.micro_size):
            mb = batch.rollout.select(rows)
            logits, hidden = completion_logits(run.model, mb, temperature, hidden=True)
            logps.append(token_logprobs(logits, mb.completion_ids))
            values.append(run.critic(hidden))
            with reference(run) as ref_model:
                if ref_model is not None:
                    ref_logits, _ = completion_logits(ref_model, mb, temperature)
                    ref.append(token_logprobs(ref_logits, mb.completion_ids))
    return torch.cat(logps), torch.cat(values), (torch.cat(ref) if ref else None)


def ppo_loss(run: Run, batch: Batch, old_logps, old_values, advantages, returns, n_tokens, rows):
    config: PPOConfig = run.config
    mb = batch.rollout.select(rows)
    mask = mb.completion_mask.float()
    logits, hidden = completion_logits(run.model, mb, config.sampling.temperature, hidden=True)
    logps = token_logprobs(logits, mb.completion_ids)
    eps_high = config.clip_eps if config.clip_eps_high is None else config.clip_eps_high
    pg_loss, low, high = clipped_surrogate(
        logps - old_logps[rows], advantages[rows], config.clip_eps, eps_high
    )
    diagnostics = logprob_gap(old_logps[rows], mb.logprobs, mask)
    if config.tis != "off":
        weights = truncated_is_weights(
            old_logps[rows], mb.logprobs, mask, config.tis, config.tis_cap
        )
        pg_loss = pg_loss * weights
        diagnostics.update(tis_metrics(weights, mask, config.tis_cap))

    # Clipped value loss (cleanrl's ppo.py): max of unclipped and clipped squared errors.
    values = run.critic(hidden)
    values_clipped = old_values[rows] + (values - old_values[rows]).clamp(
        -config.vf_clip, config.vf_clip
    )
    vf_loss = 0.5 * torch.max((values - returns[rows]) ** 2, (values_clipped - returns[rows]) ** 2)

    entropy = entropy_from_logits(logits if config.entropy_coef else logits.detach())
    per_token_loss = pg_loss + config.vf_coef * vf_loss - config.entropy_coef * entropy
    loss = masked_sum(per_token_loss, mask) / max(n_tokens, 1)
    return loss, {
        **diagnostics,
        metric.LOSS_POLICY: masked_mean(pg_loss, mask).item(),
        metric.LOSS_VALUE: masked_mean(vf_loss, mask).item(),
        metric.ENTROPY: masked_mean(entropy, mask).item(),
        metric.CLIP_RATIO: masked_mean((low | high).float(), mask).item(),
        metric.APPROX_KL: masked_mean(kl_k1(old_logps[rows], logps.detach()), mask).item(),
    }


def explained_variance(values: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor) -> float:
    residual = masked_mean((returns - values) ** 2, mask) - masked_mean(returns - values, mask) ** 2
    var = masked_mean(returns**2, mask) - masked_mean(returns, mask) ** 2
    return (1 - residual / var).item() if var > 0 else float("nan")
