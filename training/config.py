"""Run configuration: one dataclass per algorithm, every field documented.

`BaseConfig` holds what every algorithm shares (model, optimiser, schedule, sampling,
checkpointing); each algorithm's config adds its own fields. Every numeric field carries its
accepted `Range` in its field metadata (`field_range` reads it; the platform's parser and the
algorithms API show the same one), and `validate()` checks the ranges, then the cross-field
rules, and nowhere else. `to_dict` / `config_from_dict` round-trip through YAML, and the
resolved dict is stored with every run and checkpoint.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

from training.fields import bounded, field_range
from training.lora import LoraConfig, lora_from_dict

MAX_ROLLOUT_SEQUENCES = 65_536
"""Completions one step may sample (prompts_per_step x group_size): each is generated,
verified and trained on within the step."""
MAX_STEP_TOKENS = 2**27
"""Completion tokens one step may generate (completions x max_new_tokens), about 134 million:
the largest DAPO-style step (512 prompts x 16 x 16k tokens) fits, a step that no worker could
hold in memory or finish within a run's time limit does not."""


class FieldErrors(ValueError):
    """Every field outside its range, each as (path, reason); the message names them all."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))
        self.errors = errors


def range_errors(config: Any, prefix: str = "") -> list[tuple[str, str]]:
    """(path, reason) for every numeric field of `config` (nested configs included) outside
    its documented range; None is left to the field's type (it switches an option off)."""
    errors: list[tuple[str, str]] = []
    for f in dataclasses.fields(config):
        value, path = getattr(config, f.name), f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            errors += range_errors(value, f"{path}.")
            continue
        bounds = field_range(type(config), f.name)
        if bounds is None or value is None:
            continue
        whole = str(f.type).startswith("int")  # the annotation, a string under __future__
        values = value if isinstance(value, (tuple, list)) else (value,)
        if not all(_is_number(v, whole) and bounds.contains(v) for v in values):
            each = "each " if isinstance(value, (tuple, list)) else ""
            kind = "a whole number" if whole else "a number"
            errors.append((path, f"{each}must be {kind} {bounds.describe()}"))
    return errors


@dataclass
class ModelConfig:
    path: str | None = None
    """Local Hugging Face causal-LM directory or hub id; None builds the tiny model."""
    tiny_layers: int = bounded(2, 1, 64)
    """Tiny builder only: number of decoder layers."""
    tiny_width: int = bounded(128, 8, 4096)
    """Tiny builder only: hidden size (intermediate size is 4x)."""
    gradient_checkpointing: bool = False
    """Trade compute for memory on large models."""
    lora: LoraConfig = field(default_factory=LoraConfig)
    """Train LoRA adapters on the frozen base instead of every weight (`lora.rank` > 0)."""

    def __post_init__(self) -> None:
        self.lora = lora_from_dict(self.lora)  # the stored form is a dict


@dataclass
class SamplingConfig:
    max_new_tokens: int = bounded(16, 1, 32_768)
    """Completion length limit in tokens; longer completions are truncated."""
    temperature: float = bounded(1.0, 0, 10, low_open=True)
    """Sampling temperature; log-probabilities for the loss use the same temperature."""
    top_p: float = bounded(1.0, 0, 1, low_open=True)
    """Nucleus sampling threshold (1.0 = off)."""
    top_k: int = bounded(0, 0, 1_000_000)
    """Top-k sampling (0 = off)."""
    backend: str = "engine"
    """`engine`: the engine's decode loop (one prefill per prompt, static KV cache, finished
    rows dropped); `hf`: Hugging Face's generate, the reference; `vllm`: vLLM colocated on
    the GPU (the optional `vllm` extra; `training.vllm_backend`). Models the loop cannot run
    (sliding-window or hybrid attention, flash attention) use `hf`, with a warning."""
    compile: bool = False
    """`engine` backend on CUDA only: torch.compile the one-token decode step (ignored on CPU)."""


@dataclass
class BaseConfig:
    algorithm: ClassVar[str] = "base"

    seed: int = bounded(0, 0, 2**31 - 1)
    """Seeds python, numpy and torch; with the same seed a CPU run is bit-reproducible."""
    max_steps: int = bounded(100, 1, 1_000_000)
    """Training steps (one rollout batch each for RL algorithms)."""
    prompts_per_step: int = bounded(16, 1, 16_384)
    """Prompts drawn from the sampler per step (global, across processes)."""
    learning_rate: float = bounded(5e-4, 0, 1, low_open=True)
    """Peak AdamW learning rate."""
    weight_decay: float = bounded(0.0, 0, 1)
    """AdamW weight decay."""
    adam_betas: tuple[float, float] = bounded((0.9, 0.99), 0, 1, high_open=True)
    """AdamW betas (beta1, beta2), each below 1."""
    lr_schedule: str = "constant"
    """One of `constant`, `linear`, `cosine` (transformers' schedulers), after warmup."""
    warmup_steps: int = bounded(0, 0, 1_000_000)
    """Optimizer steps of linear warmup."""
    max_grad_norm: float | None = bounded(1.0, 0, 1e6)
    """Global gradient-norm clip; None disables clipping."""
    micro_batch_size: int | None = bounded(None, 1, MAX_ROLLOUT_SEQUENCES)
    """Sequences per forward/backward pass; None = one optimizer step per epoch over the batch."""
    gradient_accumulation_steps: int = bounded(1, 1, 4096)
    """Micro-batches accumulated per optimizer step."""
    cpu_threads: int = bounded(0, 0, 1024)
    """torch intra-op threads when running on CPU (0 = torch's default). Tiny models run
    fastest on 1: their matrices are too small to split, and spare cores go to verification."""
    mixed_precision: str = "no"
    """`no` or `bf16`; bf16 only takes effect on GPUs (accelerate autocast)."""
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    """Sampling parameters for rollouts; recorded with the run."""
    model: ModelConfig = field(default_factory=ModelConfig)
    """Which model to train."""
    checkpoint_every: int = bounded(50, 0, 1_000_000)
    """Save a checkpoint every this many steps (0 = only at the end): a run whose worker is
    lost resumes from its last one and repeats at most this many steps, not the whole run."""
    resume: bool = True
    """Resume from the store's latest checkpoint when one exists."""
    eval_every: int = bounded(0, 0, 1_000_000)
    """Run the held-out evaluation every this many steps (0 = never during training)."""
    eval_temperature: float = bounded(1.0, 0, 10)
    """Sampling temperature for held-out evaluation (0 = greedy)."""

    def validate(self) -> None:
        """All checks, in one place: every numeric field against its range (FieldErrors naming
        each one outside), then the cross-field rules (ValueError naming the field)."""
        errors = range_errors(self)
        if errors:
            raise FieldErrors(errors)
        _check(self.lr_schedule in ("constant", "linear", "cosine"), "lr_schedule", "unknown")
        _check(self.mixed_precision in ("no", "bf16"), "mixed_precision", "must be no or bf16")
        _check(
            self.sampling.backend in ("engine", "hf", "vllm"),
            "sampling.backend",
            "must be engine, hf or vllm",
        )
        _check(
            not self.model.lora.enabled or self.model.path is not None,
            "model.path",
            "LoRA saves its adapter against a base model directory; the tiny model built in "
            "the process has none (save it and name its directory)",
        )
        self._check_step_size()
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

    def _check_step_size(self) -> None:
        """Products of fields that are each in range can still size a step no machine holds."""
        sequences = self.rollout_batch_size
        _check(
            sequences <= MAX_ROLLOUT_SEQUENCES,
            "prompts_per_step, group_size",
            f"prompts_per_step x group_size is {sequences} completions per step; at most "
            f"{MAX_ROLLOUT_SEQUENCES}",
        )
        tokens = sequences * self.sampling.max_new_tokens
        _check(
            tokens <= MAX_STEP_TOKENS,
            "sampling.max_new_tokens",
            f"{self.sampling.max_new_tokens} tokens x {sequences} completions is {tokens} "
            f"tokens per step; at most {MAX_STEP_TOKENS}",
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

    group_size: int = bounded(8, 1, 1024)
    """Completions sampled per prompt (G)."""
    num_epochs: int = bounded(1, 1, 64)
    """Passes over each rollout batch (PPO epochs / GRPO mu); >1 needs importance ratios."""
    clip_eps: float = bounded(0.2, 0, 1, low_open=True, high_open=True)
    """Lower clip range of the ratio: 1 - clip_eps."""
    clip_eps_high: float | None = bounded(None, 0, 1, low_open=True, high_open=True)
    """Upper clip range 1 + clip_eps_high; larger than clip_eps is DAPO's clip-higher. None = clip_eps."""
    kl_estimator: str = "none"
    """KL to the frozen reference: `k1`, `k3`, or `none` (then no reference copy is kept)."""
    kl_coef: float = bounded(0.0, 0, 100)
    """Weight of the KL term (beta)."""
    entropy_coef: float = bounded(0.0, 0, 10)
    """Entropy bonus weight (0 = entropy is only logged)."""
    reward_normalization: str = "none"
    """`none` or `batch` (standardise rewards over the rollout batch before advantages)."""
    reward_clip: float | None = bounded(None, 0, 1e6, low_open=True)
    """Clip rewards to [-reward_clip, reward_clip] after normalisation; None = off."""
    unscorable_reward: float = bounded(0.0, -1e6, 1e6)
    """Reward given to completions the reward function marks unscorable (None)."""
    tis: str = "off"
    """Truncated importance sampling against the generator's own log-probs: `off`, `token`
    (each token's policy loss times min(pi_old / pi_sampler, tis_cap)) or `sequence` (the
    completion's ratio, the product over its tokens, truncated, on all of its tokens). It
    corrects a generation backend whose probabilities drift from the training forward pass,
    which logprob_gap/* measures every step (Yao et al. 2025, "Your efficient RL framework
    secretly brings you off-policy RL training"). GRPO, RLOO and PPO; rejection sampling
    ignores it."""
    tis_cap: float = bounded(2.0, 1, 1e6)
    """Upper bound C of the truncated importance weight min(ratio, C); at least 1, or
    on-policy tokens lose weight."""
    verification_workers: int = bounded(4, 1, 64)
    """Threads that run the reward function, each on a slice of the step's completions (1 = in
    the training thread). The sandbox and the SQL box serve concurrent callers, so code
    families verify this many completions at a time; above 1 the reward function must be
    thread-safe (the platform's verifiers are)."""

    @property
    def rollout_batch_size(self) -> int:
        return self.prompts_per_step * self.group_size

    def validate(self) -> None:
        super().validate()
        _check(self.kl_estimator in ("none", "k1", "k3"), "kl_estimator", "must be none, k1 or k3")
        _check(self.reward_normalization in ("none", "batch"), "reward_normalization", "unknown")
        _check(self.tis in ("off", "token", "sequence"), "tis", "must be off, token or sequence")
        if self.kl_estimator == "none":
            _check(self.kl_coef == 0.0, "kl_coef", "needs kl_estimator k1 or k3")
        else:
            why = f"must be above 0 with kl_estimator {self.kl_estimator}, or no KL is computed"
            _check(self.kl_coef > 0, "kl_coef", f"{why} (set kl_estimator none to train without)")

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
    max_refill_rounds: int = bounded(3, 0, 16)
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
    gamma: float = bounded(1.0, 0, 1, low_open=True)
    """Discount factor for GAE."""
    lam: float = bounded(0.95, 0, 1)
    """GAE lambda."""
    vf_coef: float = bounded(0.5, 0, 100, low_open=True)
    """Value loss weight (above 0, or the value head never learns)."""
    vf_clip: float = bounded(0.2, 0, 1e6, low_open=True)
    """Value clipping range around the rollout-time values."""
    whiten_advantages: bool = True
    """Standardise advantages over the batch."""


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

    max_kept_per_prompt: int = bounded(1, 1, 1024)
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


def _is_number(value: Any, whole: bool = False) -> bool:
    kinds = int if whole else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool)
