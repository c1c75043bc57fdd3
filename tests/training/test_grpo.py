import copy

import pytest
import torch

from training import digits, grpo
from training.config import GRPOConfig, ModelConfig, SamplingConfig
from training.decode import DecodeGenerator
from training.engine import train
from training.interfaces import MemorySink, RewardResult
from training.losses import normalize_and_clip
from training.models import load_model
from training.step import build_run, rollout, sample_items

from .conftest import learns_digit_first

SAMPLING = SamplingConfig(max_new_tokens=12)


def small(**overrides) -> GRPOConfig:
    fields = dict(max_steps=1, prompts_per_step=2, group_size=4, sampling=SAMPLING, seed=3)
    return GRPOConfig(**{**fields, **overrides})


def sampler(seed: int = 0):
    return digits.DigitSortSampler(4, 6, seed=seed)


def test_it_changes_parameters_after_a_step(base):
    model, tokenizer = base
    before = copy.deepcopy(model.state_dict())
    sink = MemorySink()
    train(
        small(prompts_per_step=8),
        sampler=sampler(),
        reward_fn=digits.reward_fn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    assert sink.rows[0][1]["frac_reward_zero_std"] < 1  # some group carried signal
    changed = [k for k, v in model.state_dict().items() if not torch.equal(v, before[k])]
    assert changed


def gradients(base_dir, **overrides) -> torch.Tensor:
    """The gradient of one GRPO step from the base (the optimizer step is switched off)."""
    model, tokenizer = load_model(ModelConfig(path=str(base_dir)))
    config = small(prompts_per_step=4, max_grad_norm=None, **overrides)
    run = build_run(config, model, tokenizer, sampler(1), digits.reward_fn)
    run.optimizer.step = run.optimizer.zero_grad = lambda *a, **k: None
    torch.manual_seed(0)
    grpo.train_step(run)
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def test_it_accumulates_micro_batches_like_one_batch(base_dir):
    """Micro-batch 1 x accumulation 16 gives the gradient of micro-batch 16 x accumulation 1.
    (An entropy bonus keeps the gradient non-zero even when every group is all-equal.)"""
    terms = dict(kl_estimator="k3", kl_coef=0.1, entropy_coef=0.01)
    one = gradients(base_dir, micro_batch_size=1, gradient_accumulation_steps=16, **terms)
    whole = gradients(base_dir, micro_batch_size=16, gradient_accumulation_steps=1, **terms)
    assert one.abs().sum() > 0
    assert torch.allclose(one, whole, atol=1e-6, rtol=1e-4)


def test_it_skips_zero_advantage_rows_without_changing_the_gradient(base_dir):
    skipped = gradients(
        base_dir, skip_zero_advantage=True, micro_batch_size=4, gradient_accumulation_steps=4
    )
    full = gradients(base_dir, skip_zero_advantage=False)
    assert skipped.abs().sum() > 0
    assert torch.allclose(skipped, full, atol=1e-6, rtol=1e-4)


def test_it_keeps_no_reference_copy_without_kl(base):
    model, tokenizer = base
    run = build_run(small(), model, tokenizer, sampler(), digits.reward_fn)
    assert run.ref_model is None
    run = build_run(
        small(kl_estimator="k3", kl_coef=0.05), model, tokenizer, sampler(), digits.reward_fn
    )
    assert run.ref_model is not None


def test_it_logs_trl_style_metrics(base):
    model, tokenizer = base
    sink = MemorySink()
    config = small(max_steps=1, kl_estimator="k3", kl_coef=0.05, num_epochs=2, clip_eps_high=0.28)
    train(
        config,
        sampler=sampler(),
        reward_fn=digits.reward_fn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    metrics = sink.rows[0][1]
    for key in (
        "reward/mean",
        "reward/std",
        "reward/correct",
        "success/sort_digits",
        "kl",
        "entropy",
        "clip_ratio",
        "completions/mean_length",
        "completions/max_length",
        "frac_reward_zero_std",
        "perf/tokens_per_s",
        "time/generation_s",
        "time/verification_s",
        "time/update_s",
        "learning_rate",
        "grad_norm",
    ):
        assert key in metrics, key


def test_it_stops_when_the_control_asks(base):
    model, tokenizer = base
    result = train(
        small(max_steps=5),
        sampler=sampler(),
        reward_fn=digits.reward_fn,
        sink=MemorySink(stop_after=2),
        model=model,
        tokenizer=tokenizer,
    )
    assert result.stopped and result.steps == 2


def test_it_learns_a_task_an_untrained_model_can_learn():
    before, after, _ = learns_digit_first(GRPOConfig)
    assert before < 0.2
    assert after > before + 0.5


def spread_reward(items, completions) -> list[RewardResult]:
    """The completion's length in characters: raw rewards far outside [-1, 1]."""
    return [RewardResult(float(len(t)), passed=True) for t in completions]


def test_it_trains_on_normalised_and_clipped_rewards_but_logs_the_raw_ones(base):
    model, tokenizer = base
    config = small(prompts_per_step=8, reward_normalization="batch", reward_clip=1.0)
    run = build_run(config, model, tokenizer, sampler(2), spread_reward)
    batch = rollout(run, sample_items(run), config.group_size)
    raw = torch.tensor([r.reward for r in batch.results])
    assert raw.max() > 3 and raw.std() > 1  # the clip has something to do
    assert batch.rewards.abs().max() <= 1.0
    assert torch.equal(batch.rewards, normalize_and_clip(raw, "batch", 1.0))
    assert batch.metrics["reward/mean"] == pytest.approx(raw.mean().item())


def constant_reward(items, completions) -> list[RewardResult]:
    return [RewardResult(1.0, passed=True) for _ in completions]


def one_step_changes(base, **overrides) -> tuple[bool, dict[str, float]]:
    """Whether one GRPO step with an entropy bonus moved the weights, and its metrics."""
    model, tokenizer = base
    before = copy.deepcopy(model.state_dict())
    sink = MemorySink()
    train(
        small(prompts_per_step=4, entropy_coef=0.05, **overrides),
        sampler=sampler(),
        reward_fn=constant_reward,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    changed = any(not torch.equal(v, before[k]) for k, v in model.state_dict().items())
    return changed, sink.rows[0][1]


def test_it_drops_zero_variance_groups_from_the_update_when_asked(base_dir):
    # Every group is all-pass, so only the entropy bonus carries a gradient.
    fresh = lambda: load_model(ModelConfig(path=str(base_dir)))  # noqa: E731
    kept, metrics = one_step_changes(fresh(), drop_zero_std_groups=False)
    dropped, dropped_metrics = one_step_changes(fresh(), drop_zero_std_groups=True)
    assert metrics["frac_reward_zero_std"] == dropped_metrics["frac_reward_zero_std"] == 1.0
    assert kept and not dropped


@pytest.mark.parametrize("backend", ["engine", "hf"])
def test_it_logs_a_near_zero_train_inference_gap_with_either_backend(base, backend):
    model, tokenizer = base
    sampling = SamplingConfig(max_new_tokens=12, backend=backend)
    run = build_run(
        small(prompts_per_step=8, sampling=sampling), model, tokenizer, sampler(), digits.reward_fn
    )
    metrics = grpo.train_step(run)
    assert 0 <= metrics["logprob_gap/mean"] <= metrics["logprob_gap/max"] < 1e-4  # float32


def test_it_leaves_the_gradient_unchanged_with_tis_when_sampler_and_trainer_agree(base_dir):
    plain = gradients(base_dir)
    for level in ("token", "sequence"):
        corrected = gradients(base_dir, tis=level)
        assert plain.abs().sum() > 0
        assert torch.allclose(corrected, plain, atol=1e-6, rtol=1e-3)


def drifted_run(base_dir, **overrides):
    """A run whose completions come from a perturbed copy of the policy: a generation backend
    whose probabilities drift from the trainer's."""
    model, tokenizer = load_model(ModelConfig(path=str(base_dir)))
    config = small(prompts_per_step=4, max_grad_norm=None, **overrides)
    run = build_run(config, model, tokenizer, sampler(1), digits.reward_fn)
    drifted = copy.deepcopy(model)
    with torch.no_grad(), torch.random.fork_rng():
        torch.manual_seed(0)
        for param in drifted.parameters():
            param.add_(torch.randn_like(param) * 0.02)
    run.generator = DecodeGenerator(drifted, tokenizer)
    run.optimizer.step = run.optimizer.zero_grad = lambda *a, **k: None
    torch.manual_seed(0)
    metrics = grpo.train_step(run)
    return metrics, torch.cat([p.grad.flatten() for p in model.parameters()])


def test_it_reweights_completions_from_a_drifting_backend_with_truncated_is(base_dir):
    plain_metrics, plain = drifted_run(base_dir)
    assert plain_metrics["logprob_gap/mean"] > 0.01 and "tis/weight_mean" not in plain_metrics
    for level in ("token", "sequence"):
        metrics, corrected = drifted_run(base_dir, tis=level, tis_cap=1.5)
        assert metrics["logprob_gap/max"] == plain_metrics["logprob_gap/max"]  # same samples
        assert 0 < metrics["tis/weight_mean"] <= 1.5
        assert 0 < metrics["tis/truncated_frac"] < 1
        assert not torch.allclose(corrected, plain, atol=1e-6, rtol=1e-3)


def test_micro_batches_accumulate_through_accelerate_syncing_on_the_last_only(base):
    """accelerate's accumulate() drives the micro-batches: gradients sync across processes
    (and DeepSpeed's engine reaches its boundary and steps) on each step's last one only."""
    model, tokenizer = base
    config = small(micro_batch_size=2, gradient_accumulation_steps=4, skip_zero_advantage=False)
    run = build_run(config, model, tokenizer, sampler(1), digits.reward_fn)
    syncs, steps = [], []
    backward, step = run.accelerator.backward, run.optimizer.step

    def recording_backward(loss, **kwargs):
        syncs.append(run.accelerator.sync_gradients)
        return backward(loss, **kwargs)

    def recording_step(*args, **kwargs):
        steps.append(run.accelerator.sync_gradients)
        return step(*args, **kwargs)

    run.accelerator.backward, run.optimizer.step = recording_backward, recording_step
    grpo.train_step(run)  # 2 prompts x 4 completions: one optimizer step of 4 micro-batches
    assert syncs == [False, False, False, True]
    assert steps == [True]
    assert run.accelerator.gradient_accumulation_steps == 4
