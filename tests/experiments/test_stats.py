"""The report's statistics: paired bootstrap, verdicts, headline and capability profile."""

from __future__ import annotations

import random

import pytest

from experiments import stats
from experiments.stats import Interval, Outcome


def test_it_gives_a_zero_width_interval_when_every_pair_differs_by_the_same_amount() -> None:
    ci = stats.paired_bootstrap([1.0, 0.5, 0.75], [0.5, 0.0, 0.25])
    assert ci == Interval(0.5, 0.5, 0.5)


def test_it_gives_zero_for_identical_scores() -> None:
    scores = [0.0, 1.0, 0.5, 0.25]
    assert stats.paired_bootstrap(scores, scores) == Interval(0.0, 0.0, 0.0)


def test_it_pairs_tasks_so_shared_difficulty_cancels() -> None:
    # Scores vary a lot from task to task but the candidate is always 0.1 ahead: an unpaired
    # interval would straddle zero, the paired one is the shift itself.
    rng = random.Random(1)
    base = [rng.random() * 0.9 for _ in range(200)]
    ci = stats.paired_bootstrap([b + 0.1 for b in base], base)
    assert ci.low == pytest.approx(0.1) and ci.high == pytest.approx(0.1)


def test_it_brackets_the_mean_difference_and_narrows_with_more_tasks() -> None:
    rng = random.Random(7)

    def sample(n: int) -> tuple[list[float], list[float]]:
        base = [float(rng.random() < 0.5) for _ in range(n)]
        cand = [float(rng.random() < 0.6) for _ in range(n)]
        return cand, base

    small, large = stats.paired_bootstrap(*sample(50)), stats.paired_bootstrap(*sample(2000))
    for ci in (small, large):
        assert ci.low < ci.estimate < ci.high
    assert large.high - large.low < small.high - small.low
    assert large.low < 0.1 < large.high


def test_it_is_reproducible_for_a_seed() -> None:
    cand, base = [1.0, 0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0, 1.0]
    assert stats.paired_bootstrap(cand, base, seed=3) == stats.paired_bootstrap(cand, base, seed=3)


def test_it_refuses_unpaired_or_empty_inputs() -> None:
    with pytest.raises(ValueError, match="same tasks"):
        stats.paired_bootstrap([1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="no tasks"):
        stats.paired_bootstrap([], [])


@pytest.mark.parametrize(
    ("interval", "threshold", "expected"),
    [
        (Interval(-0.05, -0.08, -0.02), 2.0, stats.REGRESSED),
        (Interval(-0.01, -0.015, -0.005), 2.0, stats.UNCHANGED),  # significant, within budget
        (Interval(-0.05, -0.12, 0.01), 2.0, stats.UNCHANGED),  # the interval reaches zero
        (Interval(0.04, 0.01, 0.07), 2.0, stats.IMPROVED),
        (Interval(0.0, 0.0, 0.0), 0.0, stats.UNCHANGED),
    ],
)
def test_it_judges_a_difference_against_the_threshold(
    interval: Interval, threshold: float, expected: str
) -> None:
    assert stats.verdict(interval, threshold) == expected


def test_pass_at_k_matches_the_closed_form() -> None:
    assert stats.pass_at_k(4, 0, 2) == 0.0
    assert stats.pass_at_k(4, 4, 2) == 1.0
    assert stats.pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert stats.pass_at_k(4, 1, 2) == pytest.approx(0.5)  # 1 - C(3,2)/C(4,2)
    assert stats.pass_at_k(4, 3, 2) == 1.0
    with pytest.raises(ValueError):
        stats.pass_at_k(2, 1, 3)


def _outcomes(family: str, successes: list[int], k: int = 4) -> list[Outcome]:
    return [
        Outcome(f"h{i}", family, 1 + i % 2, passes, k, {"semantic/wrong_answer": k - passes})
        for i, passes in enumerate(successes)
    ]


def test_it_compares_families_on_the_tasks_both_sides_evaluated() -> None:
    candidate = _outcomes("sort", [4] * 40) + _outcomes("add", [0] * 40)
    baseline = _outcomes("sort", [0] * 40) + _outcomes("add", [4] * 30)  # 10 add tasks unmatched
    rows = {r.family: r for r in stats.compare(candidate, baseline, {"add": 5.0})}
    assert rows["sort"].verdict == stats.IMPROVED and rows["sort"].difference == 1.0
    assert rows["add"].tasks == 30 and rows["add"].threshold_pts == 5.0
    assert rows["add"].verdict == stats.REGRESSED
    assert stats.headline(list(rows.values())) == "regressed: add (−100.0 pts, CI [−100.0, −100.0])"


def test_the_headline_says_when_nothing_regressed() -> None:
    same = _outcomes("sort", [2, 3, 1, 4])
    rows = stats.compare(same, same)
    assert [r.verdict for r in rows] == [stats.UNCHANGED]
    assert stats.headline(rows) == "no family regressed"
    assert stats.headline([]) == "no family in common to compare"


def test_the_profile_breaks_success_down_by_level_layer_and_task() -> None:
    outcomes = _outcomes("sort", [4, 0, 2, 2]) + [
        Outcome("x", "add", 1, 1, 4, {"syntax/format": 2, "semantic/wrong_answer": 1})
    ]
    profile = stats.profile(outcomes, worst=2)
    assert profile["by_difficulty"]["sort"] == [
        {"difficulty": 1, "success": 0.75, "tasks": 2},
        {"difficulty": 2, "success": 0.25, "tasks": 2},
    ]
    assert profile["errors_by_layer"]["add"] == {
        "semantic": {"wrong_answer": 1},
        "syntax": {"format": 2},
    }
    assert [t["task_hash"] for t in profile["worst_tasks"]] == ["h1", "x"]
    assert profile["pass_at_k"]["add"] == {"k": 4, "pass_at_1": 0.25, "pass_at_k": 1.0}
