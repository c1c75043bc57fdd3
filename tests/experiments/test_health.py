"""Reward-hacking and drift signals on synthetic metric histories (no database)."""

from __future__ import annotations

import math

import torch

from experiments import health
from experiments.health import BREACHED, OK, UNAVAILABLE, WARNING, Settings
from training.interfaces import Item, RewardResult
from training.metrics import reward_metrics


def line(start: float, end: float, steps: range) -> list[tuple[int, float]]:
    n = len(steps) - 1
    return [(s, start + (end - start) * i / n) for i, s in enumerate(steps)]


def by_name(history: dict, settings: Settings | None = None, band=(0.3, 0.7)) -> dict:
    return {s.name: s for s in health.assess(history, settings, band)}


STEPS = range(1, 81)
EVALS = range(10, 81, 10)


def test_it_breaches_when_reward_rises_and_held_out_success_stays_flat() -> None:
    history = {
        "reward/mean": line(0.2, 0.6, STEPS),
        "eval/success/arith": [(s, 0.31) for s in EVALS],
        "eval/success/sort": [(s, 0.31) for s in EVALS],
    }
    signal = by_name(history)["reward_vs_heldout"]
    assert signal.state == BREACHED
    assert signal.sentence == (
        "training reward rose 0.20 while held-out success stayed at 0.31 over steps 40–80"
    )
    assert not signal.pause_on_breach
    assert signal.since_step is not None and signal.since_step <= 80
    assert "stayed at 0.31" in health.pause_reason(signal)


def test_it_is_ok_when_held_out_success_rises_with_the_reward() -> None:
    history = {
        "reward/mean": line(0.2, 0.6, STEPS),
        "eval/success/arith": line(0.2, 0.6, EVALS),
    }
    signal = by_name(history)["reward_vs_heldout"]
    assert signal.state == OK
    assert signal.since_step is None


def test_it_breaches_when_held_out_success_falls_while_the_reward_rises() -> None:
    # The reward's rise alone (0.10) stays under the threshold (0.15); the fall widens the gap.
    history = {
        "reward/mean": line(0.2, 0.4, STEPS),
        "eval/success/arith": line(0.6, 0.4, EVALS),
    }
    signal = by_name(history)["reward_vs_heldout"]
    assert signal.state == BREACHED
    assert signal.sentence == (
        "training reward rose 0.10 while held-out success fell 0.11 over steps 40–80"
    )
    # The gap: the reward's rise plus the held-out fall, each over the 40-step window.
    rise, fall = 0.2 * 40 / 79, 0.2 * 40 / 70
    assert signal.value is not None and math.isclose(signal.value, rise + fall, rel_tol=1e-6)
    steady = {**history, "reward/mean": [(s, 0.3) for s in STEPS]}
    assert by_name(steady)["reward_vs_heldout"].state == OK  # a fall alone is not this signal


def test_it_says_unavailable_without_held_out_evaluations() -> None:
    signal = by_name({"reward/mean": line(0.2, 0.6, STEPS)})["reward_vs_heldout"]
    assert signal.state == UNAVAILABLE
    assert "held-out" in signal.sentence


def test_it_breaches_on_a_length_blowup_from_where_it_began() -> None:
    lengths = [(s, 20.0) for s in range(1, 61)] + [(s, 80.0) for s in range(61, 81)]
    signal = by_name({"completions/mean_length": lengths})["length_blowup"]
    assert signal.state == BREACHED
    assert signal.value == 4.0
    assert signal.since_step is not None and 61 <= signal.since_step <= 65
    assert "4.0x the 20 of the first 40 steps" in signal.sentence


def test_it_keeps_lengths_that_grow_a_little_ok() -> None:
    signal = by_name({"completions/mean_length": line(20, 30, STEPS)})["length_blowup"]
    assert signal.state == OK


def test_it_breaches_on_a_kl_spike_and_not_on_a_steady_climb() -> None:
    steady = [(s, 0.01 + 0.0005 * s + 0.002 * math.sin(s)) for s in STEPS]
    assert by_name({"kl": steady})["kl_spike"].state == OK
    spiked = [*steady[:-1], (80, 0.5)]
    signal = by_name({"kl": spiked})["kl_spike"]
    assert signal.state == BREACHED
    assert signal.since_step == 80


def test_it_breaches_on_a_kl_above_the_absolute_limit() -> None:
    signal = by_name({"kl": [(s, 1.2) for s in STEPS]})["kl_spike"]
    assert signal.state == BREACHED


def test_it_warns_then_breaches_as_entropy_collapses() -> None:
    assert by_name({"entropy": [(s, 1.0) for s in STEPS]})["entropy_collapse"].state == OK
    assert by_name({"entropy": [(s, 0.06) for s in STEPS]})["entropy_collapse"].state == WARNING
    falling = [(s, 1.0) for s in range(1, 51)] + [(s, 0.01) for s in range(51, 81)]
    signal = by_name({"entropy": falling})["entropy_collapse"]
    assert signal.state == BREACHED
    assert signal.since_step is not None and 51 <= signal.since_step <= 55


def curriculum(level_mass: float, success: float) -> dict:
    return {
        "curriculum/arith/d1": [(s, level_mass) for s in STEPS],
        "curriculum/arith/d2": [(s, 1 - level_mass) for s in STEPS],
        "curriculum/arith/rolling_success": [(s, success) for s in STEPS],
    }


def test_it_breaches_when_the_curriculum_sits_on_one_level_outside_the_band() -> None:
    signal = by_name(curriculum(0.95, 0.05))["curriculum_stuck"]
    assert signal.state == BREACHED
    assert signal.since_step == 1
    assert signal.sentence == (
        "arith has sampled level 1 for 80 steps while its success stayed outside the band 0.3–0.7"
    )


def test_it_keeps_a_curriculum_on_one_level_in_the_band_ok() -> None:
    assert by_name(curriculum(0.95, 0.5))["curriculum_stuck"].state == OK
    assert by_name(curriculum(0.6, 0.05))["curriculum_stuck"].state == OK


def test_it_breaches_when_one_reward_part_dominates() -> None:
    history = {
        "reward/mean": [(s, 1.0) for s in STEPS],
        "reward/outcome": [(s, 0.99) for s in STEPS],
        "reward/process": [(s, 0.01) for s in STEPS],
    }
    signal = by_name(history)["part_dominates"]
    assert signal.state == BREACHED
    assert signal.sentence.startswith("outcome makes 99% of the reward")
    balanced = {**history, "reward/process": [(s, 0.5) for s in STEPS]}
    assert by_name(balanced)["part_dominates"].state == OK


def test_a_part_weighted_zero_does_not_dominate_the_reward() -> None:
    history = {
        "reward/mean": [(s, 0.5) for s in STEPS],
        "reward/outcome": [(s, 0.5) for s in STEPS],
        "reward/process": [(s, 40.0) for s in STEPS],  # scored, but weighted 0
        "reward/constraint": [(s, 0.5) for s in STEPS],
    }
    unweighted = by_name(history)["part_dominates"]
    assert unweighted.state == BREACHED and unweighted.sentence.startswith("process makes 98%")
    weights = {"outcome": 1.0, "process": 0.0, "constraint": 0.5}
    signal = {s.name: s for s in health.assess(history, weights=weights)}["part_dominates"]
    assert signal.state == OK
    assert signal.sentence.startswith("outcome makes 50% of the reward")
    only_outcome = {"outcome": 1.0, "process": 0.0, "constraint": 0.0}
    signal = {s.name: s for s in health.assess(history, weights=only_outcome)}["part_dominates"]
    assert signal.state == UNAVAILABLE
    assert "with a weight above 0" in signal.sentence


def test_judge_flips_are_unavailable_until_a_run_logs_them() -> None:
    assert by_name({})["judge_flips"].state == UNAVAILABLE
    flips = {health.JUDGE_FLIP_METRIC: [(s, 0.3) for s in STEPS]}
    assert by_name(flips)["judge_flips"].state == BREACHED


def judged(rules_pass: bool, judge_pass: bool) -> RewardResult:
    """A rollout's result from a verifier with a rule layer and a model-judge layer."""
    layers = [
        {"kind": "string_match", "stage": "semantic", "passed": rules_pass, "skipped": False},
        {"kind": "model_judge", "stage": "judge", "passed": judge_pass, "skipped": False},
    ]
    return RewardResult(float(rules_pass), rules_pass, details={"layers": layers})


def recorded(steps: range, results: list[RewardResult]) -> dict:
    """The metric history of a run whose every step verified ``results``."""
    history: dict[str, list[tuple[int, float]]] = {}
    items, rewards = [Item("p")] * len(results), torch.tensor([r.reward for r in results])
    for step in steps:
        for key, value in reward_metrics(items, results, rewards).items():
            history.setdefault(key, []).append((step, value))
    return history


def test_a_run_whose_judge_overrules_its_rules_breaches_judge_flips() -> None:
    flipping = [judged(True, False)] * 3 + [judged(True, True)] * 7  # 30% > the 20% default
    signal = by_name(recorded(STEPS, flipping))["judge_flips"]
    assert signal.state == BREACHED and signal.value == 0.3 and signal.since_step == 1
    agreeing = [judged(True, True)] * 9 + [judged(False, True)]  # 10%: under the warning line
    assert by_name(recorded(STEPS, agreeing))["judge_flips"].state == OK


def test_a_run_without_a_judge_layer_leaves_judge_flips_unchecked() -> None:
    history = recorded(STEPS, [RewardResult(1.0, True, details={"layers": []})] * 4)
    assert by_name(history)["judge_flips"].state == UNAVAILABLE


def test_thresholds_and_switches_come_from_the_settings() -> None:
    settings, problems = health.parse_settings(
        {
            "window": 20,
            "signals": {
                "entropy_collapse": {"threshold": 0.001, "pause_on_breach": True},
                "kl_spike": {"enabled": False},
            },
        }
    )
    assert problems == []
    signals = by_name({"entropy": [(s, 0.01) for s in STEPS]}, settings)
    assert signals["entropy_collapse"].state == OK
    assert signals["entropy_collapse"].pause_on_breach
    assert "kl_spike" not in signals
    assert health.settings_dict(settings)["window"] == 20


def test_bad_settings_name_the_field_and_reason() -> None:
    _, problems = health.parse_settings(
        {"window": 0, "colour": 1, "signals": {"kl_spike": {"threshold": "high"}, "nope": {}}}
    )
    fields = dict(problems)
    assert fields["window"].startswith("must be between 2")
    assert fields["colour"] == "is not a setting"
    assert fields["signals.kl_spike.threshold"] == "must be a number"
    assert fields["signals.nope"].startswith("is not a signal")
    assert health.parse_settings([1])[1] == [("non_field_errors", "must be a JSON object")]


def test_it_reads_only_the_metrics_it_needs() -> None:
    keys = [
        "reward/mean",
        "reward/outcome",
        "success/arith",
        "eval/success/arith",
        "eval/success/arith/d1",
        "kl",
        "loss/policy",
        "curriculum/arith/d2",
    ]
    assert health.metric_keys(keys) == [
        "reward/mean",
        "reward/outcome",
        "eval/success/arith",
        "kl",
        "curriculum/arith/d2",
    ]
