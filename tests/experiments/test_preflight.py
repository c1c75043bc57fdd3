"""The pre-flight's report and warnings from verdicts (pure: no database, no model)."""

from __future__ import annotations

from experiments import preflight
from experiments.preflight import Judged, RewardShaping


def groups(level: int, rewards: list[list[float]], *, error: str = "wrong_answer", seconds=0.01):
    """Judged completions, one inner list per group; a reward of 1 passes."""
    return [
        Judged(level, g, r, r == 1.0, "" if r == 1.0 else error, seconds)
        for g, group in enumerate(rewards)
        for r in group
    ]


def test_it_reports_pass_rate_and_zero_signal_share_per_level():
    judged = groups(2, [[1, 1], [1, 0]]) + groups(3, [[0, 0], [0.5, 0], [0, 0]])
    report = preflight.family_report("sort", judged, group_size=2)
    two, three = report["levels"]
    assert (two["level"], two["tasks"], two["completions"]) == (2, 2, 4)
    assert (two["pass_rate"], two["frac_reward_zero_std"]) == (0.75, 0.5)
    assert (three["pass_rate"], three["frac_reward_zero_std"]) == (0.0, 2 / 3)
    assert report["frac_reward_zero_std"] == 3 / 5 and report["pass_rate"] == 3 / 10
    assert report["error_types"] == {"wrong_answer": 7}


def test_it_sees_groups_as_the_run_does_after_clipping():
    # 2.0 and 3.0 differ, but a run that clips rewards to [-1, 1] sees two equal rewards.
    judged = groups(1, [[2.0, 3.0]])
    assert preflight.family_report("f", judged, 2)["frac_reward_zero_std"] == 0.0
    clipped = preflight.family_report("f", judged, 2, RewardShaping(clip=1.0))
    assert clipped["frac_reward_zero_std"] == 1.0


def test_it_has_no_zero_signal_share_without_groups():
    report = preflight.family_report("f", groups(1, [[1], [0]]), group_size=1)
    assert report["frac_reward_zero_std"] is None and report["pass_rate"] == 0.5


def test_it_measures_the_verifier_latency_in_milliseconds():
    latency = preflight.latency_ms([0.001 * i for i in range(1, 101)])
    assert latency == {"p50": 50.0, "p95": 95.0, "max": 100.0}
    assert preflight.latency_ms([]) == {"p50": None, "p95": None, "max": None}


def warnings(judged: list[Judged], group_size: int = 2) -> list[dict]:
    return preflight.warnings_for(preflight.family_report("sort", judged, group_size), group_size)


def test_it_says_to_move_the_curriculum_up_when_easy_levels_are_solved():
    judged = (
        groups(1, [[1, 1]] * 20)
        + groups(2, [[1, 1]] * 20)
        + groups(3, [[1, 0]] * 20)
        + groups(5, [[0, 0]] * 20)
    )
    found = {w["code"]: w for w in warnings(judged)}
    assert found["move_up"]["message"] == (
        "sort: levels 1–2 are solved, level 5 is never solved: move the curriculum up "
        "(start at level 3)"
    )
    assert found["move_up"]["levels"] == [1, 2, 5] and found["move_up"]["severity"] == "warning"


def test_it_says_when_every_level_or_none_is_solved():
    assert [w["code"] for w in warnings(groups(1, [[1, 1]] * 5))] == ["all_solved", "zero_signal"]
    codes = [w["code"] for w in warnings(groups(1, [[0, 0.2]] * 5) + groups(2, [[0, 0.1]]))]
    assert codes == ["none_solved"]


def test_it_names_a_hard_top_level_as_information_only():
    judged = groups(1, [[1, 0]] * 10) + groups(4, [[0, 0.5]] * 10)
    (warning,) = warnings(judged)
    assert warning["code"] == "out_of_reach" and warning["severity"] == "info"
    assert warning["message"] == (
        "sort: level 4 is never solved: no signal there until the model improves; keep its "
        "share small at first"
    )


def test_it_points_at_the_prompt_template_when_format_errors_dominate():
    judged = groups(1, [[0, 0.5]] * 9, error="format_error") + groups(1, [[1, 0.5]])
    found = {w["code"]: w["message"] for w in warnings(judged)}
    assert found["errors:format_error"] == (
        "sort: the verifier rejects 90% on format: check the prompt template"
    )


def test_it_warns_when_most_groups_teach_nothing_and_the_verifier_is_slow():
    judged = groups(1, [[1, 1]] * 6 + [[1, 0]] * 4, seconds=1.5) + groups(2, [[0, 0]] * 6)
    found = {w["code"]: w for w in warnings(judged)}
    assert found["zero_signal"]["levels"] == [1, 2]
    assert found["zero_signal"]["message"].startswith(
        "sort: 75% of groups get the same reward for all 2 answers and teach nothing"
    )
    assert "1.5 s per completion at p95" in found["slow_verifier"]["message"]


def test_it_totals_the_families_and_gathers_their_warnings():
    easy = preflight.family_report("easy", groups(1, [[1, 1]] * 3), 2)
    mixed = preflight.family_report("mixed", groups(1, [[1, 0]]), 2)
    report = preflight.report([easy, mixed], 2)
    assert report["completions"] == 8 and report["pass_rate"] == 7 / 8
    assert report["frac_reward_zero_std"] == 3 / 4
    assert {w["family"] for w in report["warnings"]} == {"easy"}


def test_it_warns_first_when_the_run_plans_too_few_prompts_to_learn():
    (warning,) = preflight.run_size_warnings(60, 16, least=1920)
    assert warning["code"] == "too_few_prompts" and warning["family"] == ""
    assert warning["message"].startswith("60 steps x 16 prompts is 960 prompts, too few to move")
    assert "every preset needed 1,920 to lift held-out success" in warning["message"]
    assert preflight.run_size_warnings(120, 16, least=1920) == []
    assert preflight.run_size_warnings(1, 1, least=None) == []  # SFT: no floor measured
    easy = preflight.family_report("easy", groups(1, [[1, 1]] * 3), 2)
    codes = [w["code"] for w in preflight.report([easy], 2, [warning])["warnings"]]
    assert codes == ["too_few_prompts", "all_solved", "zero_signal"]
