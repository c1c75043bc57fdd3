"""Stability over turns: the profile math of a family played as an environment."""

from __future__ import annotations

from typing import Any

import pytest

from experiments import stability, stats
from experiments.stats import Outcome


def episode(passed: bool, turns: int, tokens: int = 10, tool_errors: int = 0) -> dict[str, Any]:
    return {
        "passed": passed, "turns": turns, "tokens": tokens, "assistant_tokens": tokens // 2,
        "turn_errors": tool_errors, "tool_errors": tool_errors, "ended_by": "environment",
    }  # fmt: skip


def task(name: str, budget: int, *episodes: dict[str, Any], family: str = "guess") -> Outcome:
    passes = sum(e["passed"] for e in episodes)
    held = {"turn_budget": budget, "episodes": list(episodes), "agreement": None}
    return Outcome(name, family, 1, passes, len(episodes), {}, held)


OUTCOMES = [
    # budget 3: both pass early
    task("a", 3, episode(True, 1), episode(True, 2)),
    # budget 5: one passes late, one runs out of turns with two tool errors
    task("b", 5, episode(True, 4, tokens=30), episode(False, 5, tokens=50, tool_errors=2)),
    # budget 5: never
    task("c", 5, episode(False, 5), episode(False, 5)),
]


def test_success_is_broken_down_by_turns_used_and_by_budget() -> None:
    found = stability.profile(OUTCOMES)["guess"]
    assert (found["tasks"], found["episodes"], found["k"]) == (3, 6, 2)
    assert found["success"] == pytest.approx(3 / 6)
    assert found["by_turns_used"] == [
        {"turns": 1, "episodes": 1, "success": 1.0},
        {"turns": 2, "episodes": 1, "success": 1.0},
        {"turns": 4, "episodes": 1, "success": 1.0},
        {"turns": 5, "episodes": 3, "success": 0.0},
    ]
    assert found["by_budget"] == [
        {"budget": 3, "episodes": 2, "success": 1.0, "mean_turns": 1.5},
        {"budget": 5, "episodes": 4, "success": 0.25, "mean_turns": 4.75},
    ]
    assert found["mean_turns"] == pytest.approx(22 / 6)
    assert found["mean_budget"] == pytest.approx(13 / 3)
    assert found["tokens_per_episode"] == pytest.approx(120 / 6)
    assert found["tool_errors_per_episode"] == pytest.approx(2 / 6)


def test_success_within_t_turns_climbs_to_the_overall_success_at_the_largest_budget() -> None:
    within = stability.profile(OUTCOMES)["guess"]["within_turns"]
    assert [w["turns"] for w in within] == [1, 2, 3, 4, 5]
    assert [w["success"] for w in within] == pytest.approx([1 / 6, 2 / 6, 2 / 6, 3 / 6, 3 / 6])


def test_consistency_of_repeated_episodes() -> None:
    consistency = stability.profile(OUTCOMES)["guess"]["consistency"]
    # a: both pass (agree), b: split (disagree), c: both fail (agree)
    assert consistency["agreement"] == pytest.approx(2 / 3)
    assert consistency["all_agree"] == pytest.approx(2 / 3)
    # pass^1 is the success; pass^2 counts only the task whose two episodes both passed.
    assert consistency["pass_hat_k"] == [
        {"k": 1, "value": pytest.approx(0.5)},
        {"k": 2, "value": pytest.approx(1 / 3)},
    ]


def test_pass_hat_k_is_the_chance_that_j_drawn_episodes_all_pass() -> None:
    assert stability.pass_hat_k(3, 4, 1) == pytest.approx(0.75)
    assert stability.pass_hat_k(3, 4, 2) == pytest.approx(3 / 6)
    assert stability.pass_hat_k(3, 4, 4) == 0.0
    assert stability.pass_hat_k(4, 4, 4) == 1.0
    with pytest.raises(ValueError, match="1 <= j <= k"):
        stability.pass_hat_k(1, 2, 3)


def test_one_episode_per_task_has_no_agreement() -> None:
    single = [task("a", 3, episode(True, 1)), task("b", 3, episode(False, 3))]
    consistency = stability.profile(single)["guess"]["consistency"]
    assert consistency["agreement"] is None
    assert consistency["pass_hat_k"] == [{"k": 1, "value": 0.5}]


def test_single_turn_families_show_nothing_new() -> None:
    single_turn = [Outcome("h1", "digits", 2, 3, 4), Outcome("h2", "digits", 3, 0, 4)]
    assert stability.profile(single_turn) == {}
    both = stats.profile([*single_turn, *OUTCOMES])
    assert list(both["stability"]) == ["guess"]
    # The long tail lists tasks, not their episodes.
    assert all("episodes" not in t for t in both["worst_tasks"])
    assert stats.profile(single_turn)["stability"] == {}
