"""The report as one HTML page: every figure the report page shows, and comments named by
the plot's title (no database: the export takes the report's API representation)."""

from __future__ import annotations

from typing import Any

from experiments import stats
from experiments.report_export import report_html
from experiments.stats import Outcome


def profile(errors: dict[str, Any], worst: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "by_difficulty": {"digits": [{"difficulty": 2, "success": 0.5, "tasks": 4}]},
        "errors_by_layer": errors,
        "worst_tasks": worst,
        "pass_at_k": {"digits": {"k": 4, "pass_at_1": 0.5, "pass_at_k": 0.75}},
    }


WORST = {
    "task_hash": "abcdef0123456789",
    "family": "digits",
    "difficulty": 3,
    "passes": 0,
    "k": 4,
    "errors": {"semantic/wrong_answer": 3, "syntax/<no_parse>": 1},
    "success": 0.0,
}


def report(**extra: Any) -> dict[str, Any]:
    return {
        "lineage": "sort-grpo",
        "version": 2,
        "headline": "no family regressed",
        "state": "in_review",
        "figures": {
            "settings": {
                "k": 4, "temperature": 1.0, "bootstrap_resamples": 1000, "confidence": 0.95,
                "seed": 0,
            },
            "families": [],
            "candidate_profile": profile({"digits": {"semantic": {"wrong_answer": 3}}}, [WORST]),
            "baseline_profile": profile({}, []),
            "signals": None,
        },
        "charts": [
            {"key": "success_by_level", "title": "Success by difficulty"},
            {"key": "worst_tasks", "title": "Long tail"},
        ],
        "reviews": [],
        "comments": [],
        **extra,
    }  # fmt: skip


def test_it_exports_the_error_types_and_the_worst_tasks() -> None:
    html = report_html(report())
    assert "<h2>Error types by layer</h2>" in html
    assert "<tr><td>digits</td><td>semantic</td><td>wrong_answer</td><td>3</td></tr>" in html
    assert "Baseline: no failed samples." in html
    assert "<h2>Long tail</h2>" in html
    assert (
        "<tr><td><code>abcdef012345</code></td><td>digits</td><td>3</td><td>0/4</td>"
        "<td>semantic/wrong_answer ×3, syntax/&lt;no_parse&gt; ×1</td></tr>"
    ) in html


def test_it_names_a_commented_plot_by_its_title() -> None:
    comments = [
        {"author": "ada", "family": "", "chart": "success_by_level", "body": "steep at d3"},
        {"author": "grace", "family": "digits", "chart": "", "body": "fine"},
    ]
    html = report_html(report(comments=comments))
    assert "<li>ada on the plot Success by difficulty: steep at d3</li>" in html
    assert "<li>grace on digits: fine</li>" in html
    assert "success_by_level" not in html


def test_it_draws_stability_over_turns_only_for_families_played_as_environments() -> None:
    assert "Stability over turns" not in report_html(report())
    from_stats = stats.profile(
        [
            Outcome("a", "guess", 3, 1, 2, {}, {"turn_budget": 4, "episodes": [
                {"passed": True, "turns": 2, "tokens": 9, "tool_errors": 0},
                {"passed": False, "turns": 4, "tokens": 20, "tool_errors": 1},
            ]}),
            Outcome("b", "guess", 3, 2, 2, {}, {"turn_budget": 4, "episodes": [
                {"passed": True, "turns": 1, "tokens": 5, "tool_errors": 0},
                {"passed": True, "turns": 3, "tokens": 14, "tool_errors": 0},
            ]}),
        ]
    )  # fmt: skip
    data = report()
    data["figures"]["candidate_profile"]["stability"] = from_stats["stability"]
    html = report_html(data)
    assert "<h2>Stability over turns</h2>" in html
    for chart in ("success by turns used", "success within t turns", "pass^k of repeated"):
        assert f"aria-label='guess: {chart}" in html
    # Candidate only (the baseline evaluated no episodes): its row, agreement 50% (a split, b
    # agreed), all agree 50%, 0.25 tool errors and 12 tokens per episode.
    assert (
        "<tr><td>guess</td><td>candidate</td><td>4</td><td>75%</td><td>2.50</td>"
        "<td>4.00 <span class='subtle'>(4: 75%)</span></td><td>50%</td><td>50%</td>"
        "<td>0.25</td><td>12.0</td></tr>"
    ) in html
    assert "<td>baseline</td>" not in html
