"""Every metric an engine step records is named in `training.metric_catalogue`."""

import re

import pytest

from training import digits
from training import metric_catalogue as metric
from training.algorithms import STEP_FUNCTIONS
from training.config import (
    GRPOConfig,
    PPOConfig,
    RejectionConfig,
    RLOOConfig,
    SamplingConfig,
    SFTConfig,
)
from training.engine import train
from training.interfaces import MemorySink, RewardResult
from training.models import build_tiny_model, train_tokenizer

JUDGE_LAYERS = [
    {"stage": "syntax", "kind": "regex", "passed": True, "skipped": False},
    {"stage": "judge", "kind": "model", "passed": False, "skipped": False},
]


def every_verdict(items, completions) -> list[RewardResult]:
    """Passes, fails with an error type, unscorable ones and judged ones, so the step logs
    reward parts, error shares, the unscorable share and the judge flip rate."""
    out = []
    for i, text in enumerate(completions):
        good = text[:1].isdigit()
        reward = None if i % 5 == 4 else float(good)
        details = {"layers": JUDGE_LAYERS} if i % 3 == 0 else None
        error = None if good else "format"
        out.append(RewardResult(reward, good, {"outcome": float(good)}, error, details))
    return out


SHARED = dict(
    max_steps=2,
    prompts_per_step=4,
    sampling=SamplingConfig(max_new_tokens=3),
    cpu_threads=1,
    eval_every=1,
)
RUNS = {
    "grpo-kl-tis": GRPOConfig(**SHARED, group_size=4, kl_estimator="k3", kl_coef=0.1, tis="token"),
    "grpo-dynamic": GRPOConfig(**SHARED, group_size=4, dynamic_sampling=True),
    "rloo": RLOOConfig(**SHARED, group_size=4),
    "ppo-kl-tis": PPOConfig(**SHARED, kl_estimator="k1", kl_coef=0.1, tis="sequence"),
    "sft": SFTConfig(**SHARED),
    "rejection": RejectionConfig(**SHARED, group_size=4),
}


@pytest.fixture(scope="module")
def recorded() -> dict[str, set[str]]:
    """The metric keys each configuration's run recorded."""
    tokenizer = train_tokenizer(digits.corpus(200))
    out = {}
    for name, config in RUNS.items():
        model = build_tiny_model(tokenizer, layers=1, width=16, seed=0)
        sink = MemorySink()
        train(
            config,
            sampler=digits.DigitSortSampler(2, 4, seed=1, teacher="exact"),
            reward_fn=every_verdict,
            sink=sink,
            model=model,
            tokenizer=tokenizer,
            eval_items=digits.held_out(8, 2, 4, seed=3),
            progress_bar=False,
        )
        out[name] = {key for _, metrics in sink.rows for key in metrics}
    return out


@pytest.mark.parametrize("run", list(RUNS))
def test_it_names_every_metric_a_step_records(recorded, run):
    unknown = sorted(key for key in recorded[run] if metric.lookup(key) is None)
    assert recorded[run], "the run recorded nothing"
    assert unknown == []


@pytest.mark.parametrize("run", list(RUNS))
def test_it_says_which_algorithms_record_each_metric(recorded, run):
    algorithm = RUNS[run].algorithm
    wrong = sorted(k for k in recorded[run] if algorithm not in metric.lookup(k).algorithms)
    assert wrong == []


def test_it_lists_only_the_registered_algorithms():
    assert set(metric.ALGORITHMS) == set(STEP_FUNCTIONS)
    for spec in metric.CATALOGUE:
        assert spec.algorithms and set(spec.algorithms) <= set(metric.ALGORITHMS), spec.name


def test_it_describes_each_metric_with_a_unit_and_what_healthy_looks_like():
    names = [spec.name for spec in metric.CATALOGUE]
    assert len(names) == len(set(names))
    for spec in metric.CATALOGUE:
        assert "Healthy:" in spec.description, spec.name
        fields = set(re.findall(r"\{(\w+)\}", spec.description))
        assert fields <= set(spec.placeholders), spec.name


def test_it_matches_a_template_and_reads_its_parts():
    spec = metric.lookup("success/digits/d3")
    assert spec is not None and spec.name == metric.SUCCESS_FAMILY_LEVEL
    assert spec.match("success/digits/d3") == {"family": "digits", "difficulty": "3"}
    assert metric.lookup("reward/mean").name == metric.REWARD_MEAN  # the exact name wins
    assert metric.lookup("reward/correct").name == metric.REWARD_PART
    assert metric.lookup("success/digits/hard") is None
    assert metric.lookup("mystery") is None
