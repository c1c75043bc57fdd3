"""Named algorithm presets: each paper's recipe as values of the engine's configs.

A preset sets the fields its recipe is about (the advantage estimator, the loss aggregation,
the clip range, the KL term...) and a run size (steps, prompts per step, learning rate) that
was measured to lift held-out success on the demo task (`scripts/measure_presets.py`: the
tiny model warm-started as in `python -m training demo`, lists of 2-8 digits); `measured`
says what it did. Every preset validates (`Preset.config`), and `why` says, for the fields
that make the recipe, why it sets them so; what each field is comes from the config's own
docstrings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from training.config import BaseConfig, config_from_dict


@dataclass(frozen=True)
class Preset:
    name: str
    """Its id: `grpo`, `dr-grpo`, ..."""
    title: str
    algorithm: str
    """The engine config it fills (`training.config.CONFIGS`)."""
    summary: str
    source: str
    """The paper (or papers) it follows."""
    values: dict[str, Any]
    why: dict[str, str] = field(default_factory=dict)
    """One sentence per field that makes the recipe: why this value."""
    measured: str = ""
    """What its run size did to held-out success on the demo task, and how that was measured."""

    def config(self, **overrides: Any) -> BaseConfig:
        """The validated engine config of this preset with `overrides` on top."""
        return config_from_dict({**self.values, **overrides, "algorithm": self.algorithm})


def _measured(name: str, figures: str) -> str:
    """``figures`` and how they were measured (`scripts/measure_presets.py`, one seed)."""
    return (
        f"{figures} Demo task, seed 0, 512 held-out items at temperature 1: "
        f"`python scripts/measure_presets.py --presets {name}` (2026-12-02)."
    )


PRESETS: tuple[Preset, ...] = (
    Preset(
        "grpo",
        "GRPO",
        "grpo",
        "Group-relative advantages: each completion's reward against its group's mean and "
        "std, no value model; a KL penalty keeps the policy near its start.",
        "Shao et al. 2024, DeepSeekMath (arXiv:2402.03300)",
        {
            "max_steps": 240,
            "prompts_per_step": 16,
            "learning_rate": 2e-4,
            "group_size": 8,
            "advantage_estimator": "grpo",
            "scale_rewards": True,
            "loss_aggregation": "sequence",
            "num_epochs": 1,
            "clip_eps": 0.2,
            "kl_estimator": "k3",
            "kl_coef": 0.04,
        },
        {
            "group_size": "The group is the baseline: 8 completions give a mean and std that "
            "are not noise.",
            "loss_aggregation": "As in the paper: each completion's tokens are averaged, then "
            "the completions.",
            "kl_estimator": "The paper's unbiased, always-positive k3 estimate of KL to the "
            "reference.",
            "kl_coef": "The paper's beta: strong enough to stop drift, weak enough to learn.",
        },
        measured=_measured(
            "grpo",
            "held-out success 0.447 → 0.590 (+14.3 points) in 240 steps × 16 prompts at 2e-4; "
            "+9.4 after 80 steps.",
        ),
    ),
    Preset(
        "dr-grpo",
        "Dr. GRPO",
        "grpo",
        "GRPO without its two biases: no division by the group std, and a constant loss "
        "denominator instead of each completion's length.",
        "Liu et al. 2025, Understanding R1-Zero-Like Training (arXiv:2503.20783)",
        {
            "max_steps": 240,
            "prompts_per_step": 16,
            "learning_rate": 2e-4,
            "group_size": 8,
            "scale_rewards": False,
            "loss_aggregation": "constant",
            "kl_estimator": "none",
            "kl_coef": 0.0,
        },
        {
            "scale_rewards": "Dividing by the std over-weights prompts that are nearly always "
            "or nearly never solved.",
            "loss_aggregation": "Dividing by each completion's length lets long wrong answers "
            "off lightly; a constant does not.",
            "kl_estimator": "No KL term: with a verifiable reward the paper finds it unneeded.",
        },
        measured=_measured(
            "dr-grpo",
            "held-out success 0.447 → 0.652 (+20.5 points) in 240 steps × 16 prompts at 2e-4; "
            "+10.9 after 80 steps.",
        ),
    ),
    Preset(
        "dapo",
        "DAPO",
        "grpo",
        "GRPO for long reasoning runs: clip-higher against entropy collapse, a token-level "
        "loss, and dynamic sampling that replaces groups without learning signal.",
        "Yu et al. 2025, DAPO (arXiv:2503.14476)",
        {
            "max_steps": 240,
            "prompts_per_step": 16,
            "learning_rate": 2e-4,
            "group_size": 8,
            "clip_eps": 0.2,
            "clip_eps_high": 0.28,
            "loss_aggregation": "token",
            "dynamic_sampling": True,
            "kl_estimator": "none",
            "kl_coef": 0.0,
        },
        {
            "clip_eps_high": "A wider upper clip lets unlikely tokens gain probability, which "
            "keeps the policy exploring.",
            "loss_aggregation": "Every token counts once, so the tokens of long completions are "
            "not diluted.",
            "dynamic_sampling": "Groups whose completions all score alike teach nothing; fresh "
            "prompts take their place.",
            "kl_estimator": "No KL term: the paper lets the policy move away from its start.",
        },
        measured=_measured(
            "dapo",
            "held-out success 0.447 → 0.721 (+27.3 points) in 240 steps × 16 prompts at 2e-4; "
            "+12.9 after 80 steps.",
        ),
    ),
    Preset(
        "ppo",
        "PPO with GAE",
        "ppo",
        "A value head estimates each token's return; GAE turns rewards into per-token "
        "advantages, and several clipped epochs reuse each batch.",
        "Schulman et al. 2017 (arXiv:1707.06347); Ouyang et al. 2022 (arXiv:2203.02155)",
        {
            "max_steps": 240,
            "prompts_per_step": 16,
            "learning_rate": 2e-4,
            "group_size": 4,
            "num_epochs": 2,
            "clip_eps": 0.2,
            "gamma": 1.0,
            "lam": 0.95,
            "vf_coef": 0.5,
            "vf_clip": 0.2,
            "whiten_advantages": True,
        },
        {
            "gamma": "No discount: the reward comes at the end and every token shares in it.",
            "lam": "GAE's trade-off between a biased and a noisy advantage; 0.95 is the usual.",
            "num_epochs": "Two passes over each batch; the clipped ratio keeps the second safe.",
            "whiten_advantages": "Standardised advantages keep the step size steady as rewards "
            "shift.",
        },
        measured=_measured(
            "ppo",
            "held-out success 0.447 → 0.563 (+11.5 points) in 240 steps × 16 prompts at 2e-4; "
            "below the base until about 120 steps (the value head learns first).",
        ),
    ),
    Preset(
        "rloo",
        "RLOO",
        "rloo",
        "REINFORCE with a leave-one-out baseline: each completion against the mean of the "
        "others of its prompt; unbiased and without a value model.",
        "Ahmadian et al. 2024, Back to Basics (arXiv:2402.14740)",
        {
            "max_steps": 240,
            "prompts_per_step": 16,
            "learning_rate": 2e-4,
            "group_size": 4,
            "advantage_estimator": "rloo",
            "scale_rewards": False,
            "num_epochs": 1,
        },
        {
            "group_size": "The paper's k = 4: each baseline is the mean of three other "
            "completions.",
            "scale_rewards": "The leave-one-out baseline needs no division by the std.",
            "num_epochs": "One pass: plain REINFORCE is on-policy.",
        },
        measured=_measured(
            "rloo",
            "held-out success 0.447 → 0.600 (+15.2 points) in 240 steps × 16 prompts at 2e-4; "
            "+6.3 after 80 steps.",
        ),
    ),
    Preset(
        "sft",
        "SFT",
        "sft",
        "Supervised fine-tuning on the tasks' reference answers: a warm start before RL, or a "
        "baseline to compare RL with.",
        "Cross-entropy on the completion tokens",
        {"max_steps": 240, "prompts_per_step": 16, "learning_rate": 1e-3, "lr_schedule": "cosine"},
        {"lr_schedule": "A cosine decay settles the model at the end of a fixed-length run."},
        measured=_measured(
            "sft",
            "held-out success 0.447 → 0.703 (+25.6 points) in 240 steps × 16 prompts at 1e-3 on "
            "the reference answers; below the base until about 120 steps.",
        ),
    ),
    Preset(
        "rejection-sampling",
        "Rejection sampling",
        "rejection",
        "Sample several answers per prompt, keep those the verifier accepts, and fine-tune "
        "on them: simple, stable, and a strong baseline for RL.",
        "Zelikman et al. 2022, STaR (arXiv:2203.14465); Yuan et al. 2023, RFT (arXiv:2308.01825)",
        {
            "max_steps": 240,
            "prompts_per_step": 16,
            "learning_rate": 2e-4,
            "group_size": 8,
            "max_kept_per_prompt": 1,
        },
        {
            "group_size": "Eight tries per prompt find a correct answer for most prompts the "
            "model can solve at all.",
            "max_kept_per_prompt": "One kept answer per prompt keeps easy prompts from "
            "dominating the data.",
        },
        measured=_measured(
            "rejection-sampling",
            "held-out success 0.447 → 0.719 (+27.2 points) in 240 steps × 16 prompts at 2e-4; "
            "+15.0 after 80 steps.",
        ),
    ),
)

BY_NAME = {preset.name: preset for preset in PRESETS}

MIN_PROMPTS_TO_LEARN = 1_920
"""Planned prompts (max_steps x prompts_per_step) of an RL run below which the wizard and
pre-flight warn that it is too short to move the policy. Measured with
`scripts/measure_presets.py` (held-out success every 40 steps of 16 prompts): 1,920 prompts
(120 steps) is the fewest after which every RL preset was above its base (+4.1 to +17.4
points); at 1,280 PPO was still 3.9 points below it, at 640 RLOO only 1.8 above
(within the 512-item evaluation's noise). The run in which the GRPO preset made the model
worse was 960 prompts (60 steps x 16, at 5e-4)."""
