import math

import pytest
import torch

from training.losses import (
    aggregate,
    clipped_surrogate,
    gae,
    group_advantages,
    kl_k1,
    kl_k3,
    masked_mean,
    normalize_and_clip,
    truncated_is_weights,
    zero_std_groups,
)


def test_it_normalises_advantages_within_each_group():
    rewards = torch.tensor([1.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0])
    adv = group_advantages(rewards, group_size=4)
    std = torch.tensor([1.0, 0.0, 0.0, 0.0]).std()
    assert torch.allclose(adv[:4], (torch.tensor([1.0, 0, 0, 0]) - 0.25) / (std + 1e-4))
    assert torch.equal(adv[4:], torch.zeros(4))  # an all-equal group carries no signal


def test_it_skips_std_scaling_for_dr_grpo():
    adv = group_advantages(torch.tensor([1.0, 0.0, 0.0, 0.0]), group_size=4, scale=False)
    assert torch.allclose(adv, torch.tensor([0.75, -0.25, -0.25, -0.25]))


def test_it_computes_the_leave_one_out_baseline():
    rewards = torch.tensor([1.0, 0.0, 3.0])
    adv = group_advantages(rewards, group_size=3, scale=False, estimator="rloo")
    expected = torch.tensor([1 - 1.5, 0 - 2.0, 3 - 0.5])  # r_i - mean of the other two
    assert torch.allclose(adv, expected)


def test_it_flags_zero_variance_groups():
    flat = zero_std_groups(torch.tensor([1.0, 1.0, 0.0, 1.0]), group_size=2)
    assert flat.tolist() == [True, True, False, False]


def test_it_estimates_k3_kl_as_nonnegative_and_exact_for_known_values():
    logp, ref = torch.tensor([math.log(0.5)]), torch.tensor([math.log(0.25)])
    r = 0.25 / 0.5
    assert torch.allclose(kl_k3(logp, ref), torch.tensor([r - math.log(r) - 1]))
    assert torch.allclose(kl_k1(logp, ref), torch.tensor([math.log(2.0)]))
    x = torch.randn(100)
    assert (kl_k3(x, torch.randn(100)) >= 0).all()
    assert torch.equal(kl_k3(x, x), torch.zeros(100))


def test_it_clips_the_surrogate_asymmetrically():
    log_ratio = torch.log(torch.tensor([[1.5, 0.5]]))
    adv = torch.tensor([[1.0]])
    loss, low, high = clipped_surrogate(log_ratio, adv, eps_low=0.2, eps_high=0.28)
    assert torch.allclose(loss, torch.tensor([[-1.28, -0.5]]))
    assert high.tolist() == [[True, False]] and low.tolist() == [[False, False]]


def test_it_matches_gae_by_hand():
    rewards = torch.tensor([[0.0, 0.0, 1.0, 0.0]])
    values = torch.tensor([[0.5, 0.6, 0.7, 9.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0, 0.0]])  # the last position is padding
    gamma, lam = 0.9, 0.8
    d2 = 1.0 - 0.7
    d1 = 0.0 + gamma * 0.7 - 0.6
    d0 = 0.0 + gamma * 0.6 - 0.5
    a2 = d2
    a1 = d1 + gamma * lam * a2
    a0 = d0 + gamma * lam * a1
    adv, returns = gae(rewards, values, mask, gamma, lam)
    assert torch.allclose(adv, torch.tensor([[a0, a1, a2, 0.0]]))
    assert torch.allclose(returns, torch.tensor([[a0 + 0.5, a1 + 0.6, a2 + 0.7, 0.0]]))


def test_it_aggregates_micro_batches_to_the_mini_batch_loss():
    loss = torch.rand(4, 5)
    mask = torch.tensor(
        [[1, 1, 0, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0], [1, 1, 1, 0, 0]]
    ).float()
    for mode in ("sequence", "token", "constant"):
        whole = aggregate(loss, mask, mode, n_seqs=4, n_tokens=int(mask.sum()), max_len=5)
        parts = sum(
            aggregate(loss[i : i + 1], mask[i : i + 1], mode, 4, int(mask.sum()), 5)
            for i in range(4)
        )
        assert torch.allclose(whole, parts)


def test_it_returns_zero_for_an_empty_mask():
    assert masked_mean(torch.ones(3), torch.zeros(3)).item() == 0.0


def test_it_standardises_rewards_over_the_batch_then_clips_them():
    rewards = torch.tensor([0.0, 1.0, 2.0, 3.0, 100.0])
    normalised = normalize_and_clip(rewards, "batch", None)
    assert abs(normalised.mean().item()) < 1e-5
    assert abs(normalised.std().item() - 1) < 1e-4
    clipped = normalize_and_clip(rewards, "batch", 1.0)
    assert clipped.max().item() == 1.0 and clipped.min().item() >= -1.0
    assert torch.equal(normalize_and_clip(rewards, "none", 2.5), rewards.clamp(-2.5, 2.5))
    assert torch.equal(normalize_and_clip(rewards, "none", None), rewards)


def test_it_truncates_importance_weights_per_token_or_per_sequence():
    old = torch.tensor([[-1.0, -2.0, -0.5], [-1.0, -1.0, -3.0]])
    sampled = torch.tensor([[-1.5, -1.0, -0.5], [-2.0, -1.5, -9.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])  # row 1's last token is padding
    token = truncated_is_weights(old, sampled, mask, "token", cap=2.0)
    expected = torch.tensor([[math.exp(0.5), math.exp(-1.0), 1.0], [2.0, math.exp(0.5), 1.0]])
    assert torch.allclose(token, expected)
    sequence = truncated_is_weights(old, sampled, mask, "sequence", cap=2.0)
    assert sequence.shape == (2, 1)
    assert torch.allclose(sequence, torch.tensor([[math.exp(-0.5)], [2.0]]))  # 1.5 -> capped
    with pytest.raises(ValueError, match="tis"):
        truncated_is_weights(old, None, mask, "token", cap=2.0)
