"""Run configuration: one dataclass per algorithm, every field documented.

`BaseConfig` holds what every algorithm shares (model, optimiser, schedule, sampling,
checkpointing); each algorithm's config adds its own fields. Cross-field checks live in
`validate()` and nowhere else. `to_dict` / `config_from_dict` round-trip through YAML, and
the resolved dict is stored with every run and checkpoint.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml


@dataclass
class ModelConfig:
    path: str | None = None
    """Local Hugging Face causal-LM directory or hub id; None builds the tiny model."""
    tiny_layers: int = 2
    """Tiny builder only: number of decoder layers."""
    tiny_width: int = 128
    """Tiny builder only: hidden size (intermediate size is 4x)."""
    gradient_checkpointing: bool = False
    """Trade compute for memory on large models."""


@dataclass
class SamplingConfig:
    max_new_tokens: int = 16
    """Completion length limit in tokens; longer completions are truncated."""
    temperature: float = 1.0
    """Sampling temperature; log-probabilities for the loss use the same temperature."""
    top_p: float = 1.0
    """Nucleus sampling threshold (1.0 = off)."""
    top_k: int = 0
    """Top-k sampling (0 = off)."""
    backend: str = "engine"
    """`engine`: the engine's decode loop (one prefill per prompt, static KV cache, finished
    rows dropped); `hf`: Hugging Face's generate, the reference. Models the loop cannot run
    (sliding-window or hybrid attention, flash attention) use `hf`, with a warning."""
    compile: bool = False
    """`engine` backend on CUDA only: torch.compile the one-token decode step (ignored on CPU)."""


@dataclass
class BaseConfig:
    algorithm: ClassVar[str] = "base"

    seed: int = 0
    """Seeds python, numpy and torch; with the same seed a CPU run is bit-reproducible."""
    max_steps: int = 100
    """Training steps (one rollout batch each for RL algorithms)."""
    prompts_per_step: int = 16
    """Prompts drawn from the sampler per step (global, across processes)."""
    learning_rate: float = 5e-4
    """Peak AdamW learning rate."""
    weight_decay: float = 0.0
    """AdamW weight decay."""
    adam_betas: tuple[float, float] = (0.9, 0.99)
    """AdamW betas."""
    lr_schedule: str = "constant"
    """One of `constant`, `linear`, `cosine` (transformers' schedulers), after warmup."""
    warmup_steps: int = 0
    """Optimizer steps of linear warmup."""
    max_grad_norm: float | None = 1.0
    """Global gradient-norm clip; None disables clipping."""
    micro_batch_size: int | None = None
    """Sequences per forward/backward pass; None = one optimizer step per epoch over the batch."""
    gradient_accumulation_steps: int = 1
    """Micro-batches accumulated per optimizer step."""
    cpu_threads: int = 0
    """torch intra-op threads when running on CPU (0 = torch's default). Tiny models run
    fastest on 1: their matrices are too small to split, and spare cores go to verification."""
    mixed_precision: str = "no"
    """`no` or `bf16`; bf16 only takes effect on GPUs (accelerate autocast)."""
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    """Sampling parameters for rollouts; recorded with the run."""
    model: ModelConfig = field(default_factory=ModelConfig)
    """Which model to train."""
    checkpoint_every: int = 0
    """Save a checkpoint every this many steps (0 = only at the end)."""
    resume: bool = True
    """Resume from the store's latest checkpoint when one exists."""
    eval_every: int = 0
    """Run the held-out evaluation every this many steps (0 = never during training)."""
    eval_temperature: float = 1.0
    """Sampling temperature for held-out evaluation (0 = greedy)."""

    def validate(self) -> None:
        """All cross-field checks, in one place; raises ValueError naming the field."""
        _check(self.max_steps > 0, "max_steps", "must be positive")
        _check(self.prompts_per_step > 0, "prompts_per_step", "must be positive")
        _check(self.learning_rate > 0, "learning_rate", "must be positive")
        _check(self.lr_schedule in ("constant", "linear", "cosine"), "lr_schedule", "unknown")
        _check(self.mixed_precision in ("no", "bf16"), "mixed_precision", "must be no or bf16")
        _check(self.gradient_accumulation_steps > 0, "gradient_accumulation_steps", "must be >= 1")
        _check(self.sampling.max_new_tokens > 0, "sampling.max_new_tokens", "must be positive")
        _check(self.sampling.temperature > 0, "sampling.temperature", "must be positive")
        _check(self.warmup_steps >= 0, "warmup_steps", "must be >= 0")
        _check(self.sampling.backend in ("engine", "hf"), "sampling.backend", "engine or hf")
        _check(self.sampling.top_k >= 0, "sampling.top_k", "must be >= 0 (0 = off)")
        _check(0 < self.sampling.top_p <= 1, "sampling.top_p", "must be in (0, 1]")
        batch = self.rollout_batch_size
        mini = self.mini_batch_size
        _check(batch % mini == 0, "micro_batch_size", f"micro x accumulation must divide {batch}")
        if self.micro_batch_size is None:
            _check(
                batch % self.gradient_accumulation_steps == 0,
                "gradient_accumulation_steps",
                f"must divide the rollout batch of {batch}",
            )
        total = self.max_steps * self.optimizer_steps_per_step
        _check(
            self.warmup_steps < total,
            "warmup_steps",
            f"must be below the run's {total} optimizer steps, or the learning rate never "
            "reaches its peak",
        )

    @property
    def rollout_batch_size(self) -> int:
        """Sequences per step (prompts x completions for RL algorithms)."""
        return self.prompts_per_step

    @property
    def mini_batch_size(self) -> int:
        """Sequences per optimizer step."""
        if self.micro_batch_size is None:
            return self.rollout_batch_size
        return self.micro_batch_size * self.gradient_accumulation_steps

    @property
    def micro_size(self) -> int:
        return self.mini_batch_size // self.gradient_accumulation_steps

    @property
    def optimizer_steps_per_step(self) -> int:
        return self.rollout_batch_size // self.mini_batch_size * getattr(self, "num_epochs", 1)

    def to_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, **dataclasses.asdict(self)}


@dataclass
class RLConfig(BaseConfig):
    """Fields shared by the policy-gradient algorithms (GRPO, RLOO, PPO)."""

    group_size: int = 8
    """Completions sampled per prompt (G)."""
    num_epochs: int = 1
    """Passes over each rollout batch (PPO epochs / GRPO mu); >1 needs importance ratios."""
    clip_eps: float = 0.2
    """Lower clip range of the ratio: 1 - clip_eps."""
    clip_eps_high: float | None = None
    """Upper clip range 1 + clip_eps_high; larger than clip_eps is DAPO's clip-higher. None = clip_eps."""
    kl_estimator: str = "none"
    """KL to the frozen reference: `k1`, `k3`, or `none` (then no reference copy is kept)."""
    kl_coef: float = 0.0
    """Weight of the KL term (beta)."""
    entropy_coef: float = 0.0
    """Entropy bonus weight (0 = entropy is only logged)."""
    reward_normalization: str = "none"
    """`none` or `batch` (standardise rewards over the rollout batch before advantages)."""
    reward_clip: float | None = None
    """Clip rewards to [-reward_clip, reward_clip] after normalisation; None = off."""
    unscorable_reward: float = 0.0
    """Reward given to completions the reward function marks unscorable (None)."""
    tis: str = "off"
    """Truncated importance sampling against the generator's own log-probs: `off`, `token`
    (each token's policy loss times min(pi_old / pi_sampler, tis_cap)) or `sequence` (the
    completion's ratio, the product over its tokens, truncated, on all of its tokens). It
    corrects a generation backend whose probabilities drift from the training forward pass,
    which logprob_gap/* measures every step (Yao et al. 2025, "Your efficient RL framework
    secretly brings you off-policy RL training"). GRPO, RLOO and PPO; rejection sampling
    ignores it."""
    tis_cap: float = 2.0
    """Upper bound C of the truncated importance weight min(ratio, C)."""
    verification_workers: int = 4
    """Threads that run the reward function, each on a slice of the step's completions (1 = in
    the training thread). The sandbox and the SQL box serve concurrent callers, so code
    families verify this many completions at a time; above 1 the reward function must be
    thread-safe (the platform's verifiers are)."""

    @property
    def rollout_batch_size(self) -> int:
        return self.prompts_per_step * self.group_size

    def validate(self) -> None:
        super().validate()
        _check(self.group_size >= 1, "group_size", "must be >= 1")
        _check(self.num_epochs >= 1, "num_epochs", "must be >= 1")
        _check(self.kl_estimator in ("none", "k1", "k3"), "kl_estimator", "must be none, k1 or k3")
        _check(self.reward_normalization in ("none", "batch"), "reward_normalization", "unknown")
        _check(self.tis in ("off", "token", "sequence"), "tis", "must be off, token or sequence")
        _check(self.tis_cap >= 1, "tis_cap", "must be >= 1 (below, on-policy tokens lose weight)")
        _check(self.verification_workers >= 1, "verification_workers", "must be >= 1")
        if self.kl_estimator == "none":
            _check(self.kl_coef == 0.0, "kl_coef", "needs kl_estimator k1 or k3")
        else:
            why = f"must be above 0 with kl_estimator {self.kl_estimator}, or no KL is computed"
            _check(self.kl_coef > 0, "kl_coef", f"{why} (set kl_estimator none to train without)")
        _check(0 < self.clip_eps < 1, "clip_eps", "must be between 0 and 1")
        high = self.clip_eps_high
        _check(high is None or 0 < high < 1, "clip_eps_high", "must be between 0 and 1, or null")
        _check(self.reward_clip is None or self.reward_clip > 0, "reward_clip", "must be > 0")

    @property
    def uses_reference(self) -> bool:
        return self.kl_estimator != "none" and self.kl_coef > 0


@dataclass
class GRPOConfig(RLConfig):
    """Group Relative Policy Optimization (Shao et al. 2024, arXiv:2402.03300) and variants."""

    algorithm: ClassVar[str] = "grpo"

    advantage_estimator: str = "grpo"
    """`grpo`: (r - group mean) / group std; `rloo`: r - mean of the other G-1 (Ahmadian et al. 2024)."""
    scale_rewards: bool = True
    """Divide advantages by the group std; False is Dr. GRPO (Liu et al. 2025, arXiv:2503.20783)."""
    loss_aggregation: str = "token"
    """`sequence` (GRPO paper: mean per sequence, then over sequences), `token` (DAPO: over all
    tokens of the mini-batch), `constant` (Dr. GRPO: sum / (sequences x max_new_tokens))."""
    drop_zero_std_groups: bool = False
    """Leave out groups whose rewards are all equal, without replacing them (the batch shrinks;
    `dynamic_sampling` replaces them with new groups)."""
    skip_zero_advantage: bool = True
    """Skip forward/backward for rows with zero advantage when no KL or entropy term needs
    them: the same gradient for less compute (most groups are all-pass or all-fail)."""
    dynamic_sampling: bool = False
    """DAPO dynamic sampling (Yu et al. 2025, arXiv:2503.14476): groups whose rewards are all
    equal are left out and replaced, by generating and verifying groups for newly drawn
    prompts, until the step has `prompts_per_step` groups with mixed rewards or
    `max_refill_rounds` extra rounds have run (then the missing groups count for nothing).
    Logs `dynamic_sampling/fill_rate`, `/rounds` and `/prompts_generated`."""
    max_refill_rounds: int = 3
    """Dynamic sampling only: extra generate-and-verify rounds a step may run. Each round
    draws the missing groups divided by the share of mixed groups seen so far this step."""
    async_verification: bool = False
    """Verify a step's completions while the next step's are generated. The price is one
    step of staleness: the update at step t trains on completions sampled before update t-1
    was applied (one-step off-policy; the clipped ratio is taken against the log-probs of
    the weights that sampled them), and the curriculum observes a step's verdicts after the
    next step's prompts are drawn. The first step (and the first after a resume) is
    on-policy; a resumed run does not repeat the interrupted run's draws exactly."""

    def validate(self) -> None:
        super().validate()
        _check(
            self.group_size >= 2,
            "group_size",
            f"{self.algorithm.upper()} needs at least 2 completions per prompt: its advantage "
            "compares each completion with the others of its group",
        )
        _check(self.advantage_estimator in ("grpo", "rloo"), "advantage_estimator", "unknown")
        _check(self.max_refill_rounds >= 0, "max_refill_rounds", "must be >= 0")
        _check(
            self.loss_aggregation in ("sequence", "token", "constant"),
            "loss_aggregation",
            "must be sequence, token or constant",
        )


@dataclass
class RLOOConfig(GRPOConfig):
    """REINFORCE leave-one-out (Ahmadian et al. 2024, arXiv:2402.14740) on the GRPO loop."""

    algorithm: ClassVar[str] = "rloo"

    advantage_estimator: str = "rloo"
    """Leave-one-out baseline."""
    scale_rewards: bool = False
    """RLOO does not divide by the group std."""


@dataclass
class PPOConfig(RLConfig):
    """PPO with a value head and GAE (Schulman et al. 2017; Ouyang et al. 2022 for LMs)."""

    algorithm: ClassVar[str] = "ppo"

    group_size: int = 4
    """Completions per prompt (PPO needs no groups; more samples per prompt is still cheap)."""
    num_epochs: int = 2
    """PPO epochs over each rollout batch."""
    gamma: float = 1.0
    """Discount factor for GAE."""
    lam: float = 0.95
    """GAE lambda."""
    vf_coef: float = 0.5
    """Value loss weight."""
    vf_clip: float = 0.2
    """Value clipping range around the rollout-time values."""
    whiten_advantages: bool = True
    """Standardise advantages over the batch."""

    def validate(self) -> None:
        super().validate()
        _check(0 < self.gamma <= 1, "gamma", "must be in (0, 1]")
        _check(0 <= self.lam <= 1, "lam", "must be in [0, 1]")
        _check(self.vf_coef > 0, "vf_coef", "must be > 0, or the value head never learns")
        _check(self.vf_clip > 0, "vf_clip", "must be > 0")


@dataclass
class SFTConfig(BaseConfig):
    """Supervised fine-tuning on the sampler's reference answers (loss on completion tokens)."""

    algorithm: ClassVar[str] = "sft"

    learning_rate: float = 1e-3
    """Peak AdamW learning rate."""


@dataclass
class RejectionConfig(RLConfig):
    """Rejection-sampling fine-tuning: sample, keep verified answers, SFT on them (RFT/STaR)."""

    algorithm: ClassVar[str] = "rejection"

    max_kept_per_prompt: int = 1
    """Distinct passing completions kept per prompt."""

    micro_batch_size: int | None = None
    """Ignored: the kept answers of a step form one SFT batch, one optimizer step."""

    def validate(self) -> None:
        super().validate()
        _check(
            1 <= self.max_kept_per_prompt <= self.group_size,
            "max_kept_per_prompt",
            f"must be from 1 to group_size ({self.group_size}): only that many are sampled",
        )

    @property
    def mini_batch_size(self) -> int:
        return self.rollout_batch_size  # larger than any kept set: one optimizer step per step

    @property
    def optimizer_steps_per_step(self) -> int:
        return 1


CONFIGS: dict[str, type[BaseConfig]] = {
    c.algorithm: c for c in (GRPOConfig, RLOOConfig, PPOConfig, SFTConfig, RejectionConfig)
}


def config_from_dict(data: dict[str, Any]) -> BaseConfig:
    """Build and validate the config named by `data["algorithm"]`; unknown keys are errors."""
    data = dict(data)
    name = data.pop("algorithm", "grpo")
    _check(name in CONFIGS, "algorithm", f"unknown algorithm {name!r}; one of {sorted(CONFIGS)}")
    cls = CONFIGS[name]
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    _check(not unknown, ", ".join(unknown), f"unknown for {name}")
    if "sampling" in data:
        data["sampling"] = SamplingConfig(**data["sampling"])
    if "model" in data:
        data["model"] = ModelConfig(**data["model"])
    if "adam_betas" in data:
        data["adam_betas"] = tuple(data["adam_betas"])
    config = cls(**data)
    config.validate()
    return config


def load_config(path: str | Path) -> tuple[BaseConfig, dict[str, Any]]:
    """Read a YAML run file: engine fields plus an optional `task:` section for the CLI."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    task = data.pop("task", {}) or {}
    return config_from_dict(data), task


def _check(ok: bool, name: str, reason: str) -> None:
    if not ok:
        raise ValueError(f"{name}: {reason}")
