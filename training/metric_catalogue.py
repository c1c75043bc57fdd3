"""Every metric name the engine and the platform record, defined once: its unit, what it
measures and what healthy looks like, and which algorithms produce it.

Producers (the algorithms, `training.metrics`, the platform's curriculum sampler) and readers
(run health, recording, usage, the API and, through `GET /api/v1/metrics/catalogue/`, the
charts) name metrics by these constants. A name holding `{placeholders}` is a template: one
metric per family, difficulty, reward part, error type or phase, built with `.format(...)`.
"""

# ruff: noqa: E501 (one catalogue entry a line, its description in full)

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache

GRPO, RLOO, PPO, SFT, REJECTION = "grpo", "rloo", "ppo", "sft", "rejection"
ALGORITHMS = (GRPO, RLOO, PPO, SFT, REJECTION)
"""The names `training.algorithms.STEP_FUNCTIONS` registers."""
SAMPLING = (GRPO, RLOO, PPO, REJECTION)
"""The algorithms that sample completions and have them verified each step."""
POLICY_GRADIENT = (GRPO, RLOO, PPO)
GROUPED = (GRPO, RLOO)
SUPERVISED = (SFT, REJECTION)

# --- names --------------------------------------------------------------------------------
REWARD_MEAN = "reward/mean"
REWARD_STD = "reward/std"
REWARD_OUTCOME = "reward/outcome"
REWARD_PROCESS = "reward/process"
REWARD_CONSTRAINT = "reward/constraint"
REWARD_UNSCORABLE_FRAC = "reward/unscorable_frac"
REWARD_PART = "reward/{part}"
REWARD_SUMMARIES = frozenset({REWARD_MEAN, REWARD_STD, REWARD_UNSCORABLE_FRAC})
"""The `reward/...` names that summarise the reward rather than name one of its parts."""
SUCCESS = "success"
SUCCESS_FAMILY = "success/{family}"
SUCCESS_FAMILY_LEVEL = "success/{family}/d{difficulty}"
ERRORS = "errors/{error_type}"
JUDGE_FLIP_RATE = "verdicts/judge_flip_rate"
EVAL_SUCCESS_FAMILY = "eval/success/{family}"
EVAL_SUCCESS_FAMILY_LEVEL = "eval/success/{family}/d{difficulty}"
EVAL_PREFIX = "eval/"
"""What the engine puts before a held-out evaluation's `success/...` breakdown."""
CURRICULUM_LEVEL = "curriculum/{family}/d{difficulty}"
CURRICULUM_ROLLING_SUCCESS = "curriculum/{family}/rolling_success"
KL = "kl"
APPROX_KL = "approx_kl"
ENTROPY = "entropy"
FRAC_REWARD_ZERO_STD = "frac_reward_zero_std"
FRAC_REWARD_ZERO_STD_LEVEL = "frac_reward_zero_std/{family}/d{difficulty}"
COMPLETIONS_MEAN_LENGTH = "completions/mean_length"
COMPLETIONS_MIN_LENGTH = "completions/min_length"
COMPLETIONS_MAX_LENGTH = "completions/max_length"
COMPLETIONS_CLIPPED_RATIO = "completions/clipped_ratio"
COMPLETIONS_REASONING_TOKENS = "completions/reasoning_tokens"
LOSS_POLICY = "loss/policy"
LOSS_VALUE = "loss/value"
LOSS_SFT = "loss/sft"
GRAD_NORM = "grad_norm"
LEARNING_RATE = "learning_rate"
CLIP_RATIO = "clip_ratio"
CLIP_RATIO_LOW = "clip_ratio/low_mean"
CLIP_RATIO_HIGH = "clip_ratio/high_mean"
LOGPROB_GAP_MEAN = "logprob_gap/mean"
LOGPROB_GAP_MAX = "logprob_gap/max"
TIS_WEIGHT_MEAN = "tis/weight_mean"
TIS_TRUNCATED_FRAC = "tis/truncated_frac"
EXPLAINED_VARIANCE = "val/explained_variance"
REJECTION_KEPT_FRAC = "rejection/kept_frac"
DYNAMIC_FILL_RATE = "dynamic_sampling/fill_rate"
DYNAMIC_ROUNDS = "dynamic_sampling/rounds"
DYNAMIC_PROMPTS_GENERATED = "dynamic_sampling/prompts_generated"
TOKENS_PER_S = "perf/tokens_per_s"
COMPLETIONS_PER_S = "perf/completions_per_s"
TOKENS_SEEN = "perf/tokens_seen"
STEP_S = "perf/step_s"
PHASE_S = "time/{phase}_s"

EPISODE_TURNS = "episodes/turns_mean"
EPISODE_TOKENS = "episodes/tokens_mean"
EPISODE_TURN_ERRORS = "episodes/turn_errors"
EPISODE_TOOL_CALL_ERRORS = "episodes/tool_call_errors"
EPISODE_TURN_ERROR_TYPE = "episodes/turn_errors/{error_type}"
EPISODE_SUCCESS_BY_TURNS = "episodes/success_by_turns/t{turns}"
EPISODE_ENDED_BY = "episodes/ended_by/{reason}"
EVAL_EPISODE_TURNS = "eval/episodes/turns_mean"
COMPLETION_TOKENS = "perf/completion_tokens"
COMPLETIONS = "perf/completions"
"""A step's raw counts, which the engine turns into the rates above; never recorded."""


@dataclass(frozen=True)
class MetricSpec:
    name: str
    """The recorded key, or a template whose `{placeholders}` stand for one path segment."""
    unit: str
    description: str
    """What it measures, then what healthy looks like; `{placeholders}` as in `name`."""
    algorithms: tuple[str, ...]

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The template's `{placeholders}` in order; () for an exact name."""
        return tuple(re.findall(r"\{(\w+)\}", self.name))

    @property
    def pattern(self) -> str:
        """An anchored regular expression, one capturing group per placeholder in order, that
        both Python's `re` and JavaScript's `RegExp` read the same way."""
        return _pattern(self.name)

    def match(self, key: str) -> dict[str, str] | None:
        """The placeholders' values when `key` is this metric (an exact name gives {})."""
        if not self.placeholders:
            return {} if key == self.name else None
        m = re.fullmatch(self.pattern, key)
        return dict(zip(self.placeholders, m.groups(), strict=True)) if m else None


@cache
def _pattern(template: str) -> str:
    out = ""
    for literal, field in re.findall(r"([^{]*)(?:\{(\w+)\})?", template):
        out += re.escape(literal)
        if field:
            out += r"(-?\d+)" if field == "difficulty" else r"([^/]+?)"
    return f"^{out}$"


def _m(name: str, unit: str, description: str, algorithms: tuple[str, ...]) -> MetricSpec:
    return MetricSpec(name, unit, description, algorithms)


SHARE, TOKENS, SECONDS, NATS, COUNT = "share", "tokens", "seconds", "nats", "count"
REWARD, LOSS, NONE = "reward", "loss", ""

CATALOGUE: tuple[MetricSpec, ...] = (
    _m(
        REWARD_MEAN,
        REWARD,
        "Average reward of the step's completions, before normalisation: the number training pushes up. Healthy: it rises, noisily, then levels off; a sudden jump with flat held-out success is a sign of reward hacking.",
        SAMPLING,
    ),
    _m(
        REWARD_STD,
        REWARD,
        "Spread of the rewards within the step. Healthy: clearly above zero; near zero means every completion scored alike and there is little to learn from.",
        SAMPLING,
    ),
    _m(
        REWARD_OUTCOME,
        REWARD,
        "Reward part for getting the final answer right, averaged over the step's completions. Healthy: it rises with success.",
        SAMPLING,
    ),
    _m(
        REWARD_PROCESS,
        REWARD,
        "Reward part for the intermediate checks (format, partial tests) passed on the way. Healthy: it rises first, then outcome follows.",
        SAMPLING,
    ),
    _m(
        REWARD_CONSTRAINT,
        REWARD,
        "Reward part for respecting constraints such as length and forbidden patterns. Healthy: near its maximum; a fall means the policy found a shortcut that breaks a rule.",
        SAMPLING,
    ),
    _m(
        REWARD_UNSCORABLE_FRAC,
        SHARE,
        "Share of completions the verifier could not score; they got the configured fallback reward. Healthy: near zero; a rise points at the verifier or the prompt format.",
        SAMPLING,
    ),
    _m(
        REWARD_PART,
        REWARD,
        "Average of the “{part}” reward part over the step's completions. Healthy: it rises with the total reward.",
        SAMPLING,
    ),
    _m(
        SUCCESS,
        SHARE,
        "Share of the step's completions that the verifier passed. Healthy: it rises; with a dynamic curriculum it hovers inside the target band as tasks get harder.",
        SAMPLING,
    ),
    _m(
        SUCCESS_FAMILY,
        SHARE,
        "Share of {family} completions that passed the verifier this step. Healthy: it rises; with a dynamic curriculum it settles inside the target band.",
        SAMPLING,
    ),
    _m(
        SUCCESS_FAMILY_LEVEL,
        SHARE,
        "Share of {family} completions at difficulty {difficulty} that passed the verifier this step. Healthy: easy levels near 1, the hardest levels rising from 0 over the run.",
        SAMPLING,
    ),
    _m(
        ERRORS,
        SHARE,
        "Share of completions that failed with the error type “{error_type}”. Healthy: it falls over the run; a format error that stays high points at the prompt template.",
        SAMPLING,
    ),
    _m(
        JUDGE_FLIP_RATE,
        SHARE,
        "Share of judged completions whose model-judge verdict disagrees with the rule-based layers'. Healthy: low and steady; a rise means the judge is being gamed or the rules miss something.",
        SAMPLING,
    ),
    _m(
        EVAL_SUCCESS_FAMILY,
        SHARE,
        "Held-out pass rate on the {family} family, measured without training on it. Healthy: it rises with training success and never falls for long.",
        ALGORITHMS,
    ),
    _m(
        EVAL_SUCCESS_FAMILY_LEVEL,
        SHARE,
        "Held-out pass rate on {family} tasks of difficulty {difficulty}, measured without training on them. Healthy: it rises with training success; flat while training success climbs means the model is memorising or hacking the reward.",
        ALGORITHMS,
    ),
    _m(
        CURRICULUM_LEVEL,
        SHARE,
        "Probability that the curriculum samples a {family} task at difficulty {difficulty}. Healthy: mass moves to harder levels as success rises; a dashed line marks a change made by hand.",
        ALGORITHMS,
    ),
    _m(
        CURRICULUM_ROLLING_SUCCESS,
        SHARE,
        "Success rate of {family} over the curriculum's rolling window of outcomes. Healthy: inside the target band; the policy shifts levels when it leaves it.",
        ALGORITHMS,
    ),
    _m(
        KL,
        NATS,
        "KL divergence from the frozen reference model, per token. Healthy: it grows slowly and stays small (below about 0.1); a spike means the policy moved fast and may be collapsing.",
        POLICY_GRADIENT,
    ),
    _m(
        APPROX_KL,
        NATS,
        "KL between the policy before and after this step's PPO epochs, per token. Healthy: small (around 0.01); large values mean the epochs moved too far from the rollout policy.",
        (PPO,),
    ),
    _m(
        ENTROPY,
        NATS,
        "Average per-token entropy of the policy in nats. Healthy: it declines slowly; a collapse towards zero means the policy stopped exploring and every sample looks alike.",
        POLICY_GRADIENT,
    ),
    _m(
        FRAC_REWARD_ZERO_STD,
        SHARE,
        "Share of prompt groups whose completions all got the same reward: they carry no learning signal. Healthy: well below 1; near 1 means tasks are all solved or all failed, so move the curriculum.",
        GROUPED,
    ),
    _m(
        FRAC_REWARD_ZERO_STD_LEVEL,
        SHARE,
        "Share of {family} groups at difficulty {difficulty} whose completions all scored alike (no learning signal). Healthy: well below 1; near 1 means the level is solved or out of reach, so sample it less.",
        GROUPED,
    ),
    _m(
        COMPLETIONS_MEAN_LENGTH,
        TOKENS,
        "Average completion length in tokens. Healthy: stable or slowly changing; a steady climb towards the limit is length blow-up.",
        SAMPLING,
    ),
    _m(
        COMPLETIONS_MIN_LENGTH,
        TOKENS,
        "Shortest completion of the step, in tokens. Healthy: above zero; empty completions mean the policy learned to stop early.",
        SAMPLING,
    ),
    _m(
        COMPLETIONS_MAX_LENGTH,
        TOKENS,
        "Longest completion of the step, in tokens. Healthy: below the token limit most of the time.",
        SAMPLING,
    ),
    _m(
        COMPLETIONS_CLIPPED_RATIO,
        SHARE,
        "Share of completions cut off at the token limit before they finished. Healthy: near zero; a rise means answers grow too long for the limit (raise it or penalise length).",
        SAMPLING,
    ),
    _m(
        COMPLETIONS_REASONING_TOKENS,
        TOKENS,
        "Average tokens of the completions' reasoning sections (inside the think tags), chat format only; completions/mean_length counts them too. Healthy: it may grow as tasks get harder; a climb while success stays flat is reasoning padding, and reasoning that fills the limit leaves no answer.",
        SAMPLING,
    ),
    _m(
        LOSS_POLICY,
        LOSS,
        "Policy-gradient loss. Healthy: with one pass over the batch and no KL it is about zero by construction (the advantages average out), so a flat zero does not mean nothing is learned: watch reward, the groups without signal, grad norm and KL instead.",
        POLICY_GRADIENT,
    ),
    _m(
        LOSS_VALUE,
        LOSS,
        "Value-head regression loss (PPO). Healthy: it falls early and then stays low; a rise means returns shifted faster than the value head follows.",
        (PPO,),
    ),
    _m(
        LOSS_SFT,
        NATS,
        "Cross-entropy on the reference answers' tokens (supervised fine-tuning). Healthy: it falls and levels off; a rise means the learning rate is too high.",
        SUPERVISED,
    ),
    _m(
        GRAD_NORM,
        NONE,
        "Norm of the gradient before clipping. Healthy: steady within a range; spikes (especially repeated ones) often precede instability.",
        ALGORITHMS,
    ),
    _m(
        LEARNING_RATE,
        NONE,
        "Learning rate the optimiser used at this step, after warmup and schedule. Healthy: it follows the schedule you set.",
        ALGORITHMS,
    ),
    _m(
        CLIP_RATIO,
        SHARE,
        "Share of tokens whose probability ratio hit a clip bound. Healthy: a few percent at most; zero with one pass over each batch; large values mean the update moved too far.",
        POLICY_GRADIENT,
    ),
    _m(
        CLIP_RATIO_LOW,
        SHARE,
        "Share of tokens whose probability ratio hit the lower clip bound. Healthy: a few percent at most.",
        GROUPED,
    ),
    _m(
        CLIP_RATIO_HIGH,
        SHARE,
        "Share of tokens whose probability ratio hit the upper clip bound. Healthy: a few percent at most; clip-higher (DAPO) lets this stay lower for rare tokens.",
        GROUPED,
    ),
    _m(
        LOGPROB_GAP_MEAN,
        NATS,
        "Average per-token gap between the generator's log-probabilities and the training forward pass's on the same tokens. Healthy: near zero in float32, a little larger in bf16 or with another inference engine.",
        POLICY_GRADIENT,
    ),
    _m(
        LOGPROB_GAP_MAX,
        NATS,
        "Largest per-token gap between the generator's and the trainer's log-probabilities this step. Healthy: small and steady; a rising value means rollouts are drifting off-policy.",
        POLICY_GRADIENT,
    ),
    _m(
        TIS_WEIGHT_MEAN,
        NONE,
        "Average truncated importance weight min(trainer / generator probability, cap) applied to the policy loss. Healthy: close to 1, meaning little correction was needed.",
        POLICY_GRADIENT,
    ),
    _m(
        TIS_TRUNCATED_FRAC,
        SHARE,
        "Share of tokens whose importance weight was cut at the cap: where the generator and the trainer disagree most. Healthy: near zero.",
        POLICY_GRADIENT,
    ),
    _m(
        EXPLAINED_VARIANCE,
        NONE,
        "How much of the returns' variance the value head explains (1 is perfect, 0 is useless). Healthy: it rises towards 1 early in a PPO run.",
        (PPO,),
    ),
    _m(
        REJECTION_KEPT_FRAC,
        SHARE,
        "Share of sampled completions kept as training data (they passed the verifier). Healthy: between a few percent and most; zero means nothing to learn from (easier tasks), near 1 means little left to learn.",
        (REJECTION,),
    ),
    _m(
        DYNAMIC_FILL_RATE,
        SHARE,
        "Share of the step's groups with mixed rewards (a learning signal) that dynamic sampling found. Healthy: 1; below, it ran out of refill rounds and the step trained on fewer groups.",
        GROUPED,
    ),
    _m(
        DYNAMIC_ROUNDS,
        COUNT,
        "Extra generate-and-verify rounds dynamic sampling ran to replace groups without signal. Healthy: 0 or 1; many rounds make each step slower.",
        GROUPED,
    ),
    _m(
        DYNAMIC_PROMPTS_GENERATED,
        COUNT,
        "Prompts generated this step, refills included. Healthy: close to prompts per step; far above it means most groups had no signal and the curriculum should move.",
        GROUPED,
    ),
    _m(
        TOKENS_PER_S,
        "tokens/s",
        "Completion tokens generated per second of step time. Healthy: steady; a fall with longer completions is expected, a fall without one points at the machine.",
        ALGORITHMS,
    ),
    _m(
        COMPLETIONS_PER_S,
        "completions/s",
        "Completions generated and verified per second of step time. Healthy: steady over the run.",
        ALGORITHMS,
    ),
    _m(
        TOKENS_SEEN,
        TOKENS,
        "Completion tokens the run has generated so far, across resumes. Healthy: it climbs steadily.",
        ALGORITHMS,
    ),
    _m(
        STEP_S,
        SECONDS,
        "Wall-clock seconds one training step took. Healthy: steady; a climb usually follows completion length or a slow verifier.",
        ALGORITHMS,
    ),
    _m(
        EPISODE_TURNS,
        COUNT,
        "Multi-turn runs: assistant messages per episode, averaged over the step's episodes. Healthy: it falls as the model learns to finish sooner, without held-out success falling.",
        GROUPED,
    ),
    _m(
        EPISODE_TOKENS,
        TOKENS,
        "Multi-turn runs: tokens per episode after its opening, the environment's answers included, averaged. Healthy: steady or falling; a climb to the limit means episodes run out of room.",
        GROUPED,
    ),
    _m(
        EPISODE_TURN_ERRORS,
        SHARE,
        "Multi-turn runs: share of assistant turns the environment marked with an error (a tool call that did not parse, a tool that failed, a move the rules refuse). Healthy: it falls towards 0.",
        GROUPED,
    ),
    _m(
        EPISODE_TOOL_CALL_ERRORS,
        COUNT,
        "Multi-turn runs: turns per episode whose tool call did not parse or whose tool failed. Healthy: it falls towards 0 early in the run.",
        GROUPED,
    ),
    _m(
        EVAL_EPISODE_TURNS,
        COUNT,
        "Multi-turn runs: assistant messages per held-out episode. Healthy: it falls while held-out success rises.",
        GROUPED,
    ),
    _m(
        EPISODE_TURN_ERROR_TYPE,
        SHARE,
        "Multi-turn runs: share of assistant turns with the error {error_type}. Healthy: it falls towards 0.",
        GROUPED,
    ),
    _m(
        EPISODE_SUCCESS_BY_TURNS,
        SHARE,
        "Multi-turn runs: pass rate of the step's episodes that ended after {turns} turns. Healthy: high at few turns; success only at the turn budget means the model gets there by luck.",
        GROUPED,
    ),
    _m(
        EPISODE_ENDED_BY,
        SHARE,
        "Multi-turn runs: share of episodes ended by {reason} (environment: it said done; max_turns or max_total_tokens: a limit cut it). Healthy: mostly environment.",
        GROUPED,
    ),
    _m(
        PHASE_S,
        SECONDS,
        "Seconds of the step spent on {phase}. Healthy: steady; a phase that grows to dominate the step is the one to speed up.",
        ALGORITHMS,
    ),
)
"""Exact names, then templates; a key matches at most one template."""


BY_NAME = {spec.name: spec for spec in CATALOGUE}


def match(name: str, key: str) -> dict[str, str] | None:
    """The placeholders' values when `key` is an instance of the catalogue's `name`
    (`match(SUCCESS_FAMILY, "success/digits") == {"family": "digits"}`), else None."""
    return BY_NAME[name].match(key)


def lookup(key: str) -> MetricSpec | None:
    """The catalogue entry `key` is an instance of (an exact name before a template), or
    None for a name we do not know."""
    return BY_NAME.get(key) or next((s for s in CATALOGUE if s.match(key) is not None), None)


def as_json() -> list[dict[str, object]]:
    """The catalogue as `GET /api/v1/metrics/catalogue/` serves it."""
    return [
        {
            "name": spec.name,
            "unit": spec.unit,
            "description": spec.description,
            "algorithms": list(spec.algorithms),
            "placeholders": list(spec.placeholders),
            "pattern": spec.pattern,
        }
        for spec in CATALOGUE
    ]


if __name__ == "__main__":  # the front end's test copy: python -m training.metric_catalogue
    print(json.dumps(as_json(), indent=2, ensure_ascii=False))
