"""Shared, unit-tested math for the policy-gradient algorithms.

Shapes: B = sequences, T = completion tokens, G = completions per prompt.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def masked_sum(x: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    return (x * mask).sum() if dim is None else (x * mask).sum(dim=dim)


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """Mean over positions where mask is 1; 0 (not NaN) when the mask is empty."""
    return masked_sum(x, mask, dim) / mask.sum(dim=dim).clamp(min=1)


def token_logprobs(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """log pi(ids | context): (B, T, V) logits and (B, T) ids -> (B, T)."""
    return torch.gather(logits.log_softmax(dim=-1), 2, ids.unsqueeze(-1)).squeeze(-1)


def entropy_from_logits(logits: torch.Tensor) -> torch.Tensor:
    """Per-token entropy of the categorical: (B, T, V) -> (B, T), in nats."""
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)


def normalize_and_clip(rewards: torch.Tensor, mode: str, clip: float | None) -> torch.Tensor:
    """Optional batch standardisation, then clipping to [-clip, clip]."""
    if mode == "batch":
        rewards = (rewards - rewards.mean()) / (rewards.std() + 1e-6)
    if clip is not None:
        rewards = rewards.clamp(-clip, clip)
    return rewards


def group_advantages(
    rewards: torch.Tensor, group_size: int, scale: bool = True, estimator: str = "grpo"
) -> torch.Tensor:
    """Advantages from G rewards per prompt, (B,) -> (B,) with B = prompts x G.

    grpo: A_i = (r_i - mean(r)) / (std(r) + eps)   (Shao et al. 2024, DeepSeekMath, eq. 3);
          scale=False drops the std, as Dr. GRPO recommends (Liu et al. 2025).
    rloo: A_i = r_i - mean_{j != i} r_j = G/(G-1) (r_i - mean(r))
          (Kool et al. 2019; Ahmadian et al. 2024, "Back to Basics").
    """
    grouped = rewards.view(-1, group_size)
    centred = grouped - grouped.mean(dim=1, keepdim=True)
    if estimator == "rloo":
        centred = centred * group_size / (group_size - 1)
    if scale:
        centred = centred / (grouped.std(dim=1, keepdim=True) + 1e-4)
    return centred.reshape(-1)


def zero_std_groups(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    """(B,) bool: the sequence's group has all-equal rewards (no learning signal)."""
    grouped = rewards.view(-1, group_size)
    flat = (grouped.max(dim=1).values - grouped.min(dim=1).values) < 1e-8
    return flat.repeat_interleave(group_size)


def clipped_surrogate(
    log_ratio: torch.Tensor, advantages: torch.Tensor, eps_low: float, eps_high: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """PPO's clipped objective as a per-token loss (Schulman et al. 2017, eq. 7).

    log_ratio (B, T) = log pi - log pi_old; advantages (B, 1) or (B, T). An upper range wider
    than the lower one is DAPO's clip-higher (Yu et al. 2025, arXiv:2503.14476).
    Returns (per_token_loss, low_clipped, high_clipped); the masks say where clipping bit.
    """
    ratio = torch.exp(log_ratio)
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    per_token_loss = -torch.min(ratio * advantages, clipped * advantages)
    low_clipped = (ratio < 1 - eps_low) & (advantages < 0)
    high_clipped = (ratio > 1 + eps_high) & (advantages > 0)
    return per_token_loss, low_clipped, high_clipped


def truncated_is_weights(
    old_logps: torch.Tensor,
    sampling_logps: torch.Tensor | None,
    mask: torch.Tensor,
    level: str,
    cap: float,
) -> torch.Tensor:
    """Truncated importance weights min(pi_old / pi_sampler, cap), detached: (B, T) for
    `token`, (B, 1) for `sequence` (the ratio of the whole completion, a product over its
    masked tokens). The policy-gradient loss is multiplied by them so completions sampled by
    a backend whose probabilities drift from the trainer's still estimate the trainer's
    gradient, with bounded variance (Yao et al. 2025, "Your efficient RL framework secretly
    brings you off-policy RL training"; Ionides 2008 for truncated IS).
    """
    if sampling_logps is None:
        raise ValueError("tis: the generation backend reported no sampling log-probs")
    log_ratio = (old_logps.detach() - sampling_logps) * mask  # (B, T); 0 on padding
    if level == "sequence":
        log_ratio = log_ratio.sum(dim=1, keepdim=True)  # (B, 1)
    return torch.exp(log_ratio).clamp(max=cap)


def kl_k1(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """k1 = log pi - log pi_ref: unbiased, high variance, can be negative (Schulman 2020,
    "Approximating KL Divergence", http://joschu.net/blog/kl-approx.html)."""
    return logp - ref_logp


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """k3 = exp(log r) - log r - 1 with r = pi_ref / pi: unbiased, low variance, always >= 0
    (Schulman 2020); the estimator GRPO uses (Shao et al. 2024, eq. 4)."""
    log_r = ref_logp - logp
    return torch.exp(log_r) - log_r - 1


def kl_estimate(logp: torch.Tensor, ref_logp: torch.Tensor, estimator: str) -> torch.Tensor:
    return kl_k1(logp, ref_logp) if estimator == "k1" else kl_k3(logp, ref_logp)


def aggregate(
    per_token_loss: torch.Tensor,
    mask: torch.Tensor,
    mode: str,
    n_seqs: int,
    n_tokens: int,
    max_len: int,
) -> torch.Tensor:
    """Reduce a (B, T) loss to a scalar with denominators over the whole mini-batch.

    Because n_seqs / n_tokens count the mini-batch (not this micro-batch), the sum of
    micro-batch losses equals the mini-batch loss exactly, whatever the accumulation split.
    sequence: mean per sequence, then over sequences (GRPO paper);
    token: over all tokens (DAPO); constant: sum / (sequences x max_len) (Dr. GRPO).
    """
    if mode == "sequence":
        return masked_mean(per_token_loss, mask, dim=1).sum() / n_seqs
    if mode == "token":
        return masked_sum(per_token_loss, mask) / max(n_tokens, 1)
    return masked_sum(per_token_loss, mask) / (n_seqs * max_len)


def gae(
    rewards: torch.Tensor, values: torch.Tensor, mask: torch.Tensor, gamma: float, lam: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation (Schulman et al. 2016, arXiv:1506.02438).

    rewards, values, mask: (B, T); positions after a sequence's end are masked and treated
    as terminal (their value is 0). Returns (advantages, returns), both (B, T).
      delta_t = r_t + gamma V_{t+1} - V_t,  A_t = delta_t + gamma lam A_{t+1}
    """
    values = values * mask
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[:, 0])
    for t in reversed(range(rewards.shape[1])):
        next_value = values[:, t + 1] if t + 1 < rewards.shape[1] else torch.zeros_like(last)
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        last = delta + gamma * lam * last
        last = last * mask[:, t]
        advantages[:, t] = last
    return advantages, advantages + values


def whiten(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    mean = masked_mean(x, mask)
    var = masked_mean((x - mean) ** 2, mask)
    return (x - mean) * torch.rsqrt(var + 1e-8) * mask
