"""Evaluations of a family played as an environment: the job plays k episodes per held-out
task and keeps their turns, tokens and errors; a report on two such jobs serves stability over
turns beside the other profiles, and exports it."""

from __future__ import annotations

from unittest import mock

import pytest

from experiments.catalogue import TINY_MODEL
from experiments.models import EvaluationState
from experiments.services import evaluation
from tasks_app.services import families, pinning, pools, verifiers
from tests.experiments.episode_reports_setup import BASELINE, CANDIDATE, finished_episode_job
from tests.experiments.reports_setup import finished_job
from tests.experiments.runs_setup import models_dir  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def report_body(api, owner, team):
    base = finished_episode_job(owner, team, BASELINE, "tiny")
    cand = finished_episode_job(owner, team, CANDIDATE, "guess run 1, step 80")
    response = api.post(
        "/api/v1/reports/", {"candidate": cand.pk, "baseline": base.pk}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_report_on_an_environment_family_serves_stability_over_turns(api, report_body):
    report = api.get(f"/api/v1/reports/{report_body['id']}/").json()
    cand = report["figures"]["candidate_profile"]["stability"]["guess"]
    base = report["figures"]["baseline_profile"]["stability"]["guess"]
    assert (cand["tasks"], cand["episodes"], cand["k"]) == (12, 36, 3)
    assert cand["success"] == pytest.approx(5 / 6) and base["success"] == pytest.approx(2 / 6)
    assert cand["mean_turns"] < base["mean_turns"]
    assert [b["budget"] for b in cand["by_budget"]] == [4, 5]
    assert cand["by_budget"][0] == {"budget": 4, "episodes": 18, "success": 1.0,
                                    "mean_turns": pytest.approx(7 / 3)}  # fmt: skip
    assert cand["by_turns_used"][0] == {"turns": 2, "episodes": 12, "success": 1.0}
    assert cand["within_turns"][-1]["success"] == pytest.approx(cand["success"])
    # Repeated episodes: the candidate's first tasks always agree, the baseline's never do.
    assert cand["consistency"]["agreement"] == pytest.approx((1 + 1 / 3) / 2)
    assert base["consistency"]["agreement"] == pytest.approx(1 / 3)
    assert base["consistency"]["all_agree"] == 0.0
    assert [p["k"] for p in cand["consistency"]["pass_hat_k"]] == [1, 2, 3]
    assert cand["consistency"]["pass_hat_k"][2]["value"] == pytest.approx(0.5)
    # The long tail lists tasks, not their episodes.
    assert all("episodes" not in t for t in report["figures"]["candidate_profile"]["worst_tasks"])

    html = api.get(f"/api/v1/reports/{report['id']}/export/").content.decode()
    assert "<h2>Stability over turns</h2>" in html
    assert "aria-label='guess: success by turns used'" in html

    # The evaluation itself says how many turns its episodes used and how they agreed.
    (found,) = api.get(f"/api/v1/evaluations/{report['candidate']}/").json()["results"]
    assert found["mean_turns"] == pytest.approx(cand["mean_turns"])
    assert found["agreement"] == pytest.approx(cand["consistency"]["agreement"])

    # Its plot can be discussed, and the export names it by its title.
    assert {"key": "stability", "title": "Stability over turns"} in report["charts"]
    posted = api.post(
        f"/api/v1/reports/{report['id']}/comments/",
        {"body": "fewer turns, and steadier", "chart": "stability"},
        format="json",
    )
    assert posted.status_code == 201, posted.json()
    html = api.get(f"/api/v1/reports/{report['id']}/export/").content.decode()
    assert "on the plot Stability over turns: fewer turns, and steadier" in html


def test_a_single_turn_report_has_no_stability(api, owner, team):
    base = finished_job(owner, team, [1, 2] * 10, "base")
    cand = finished_job(owner, team, [3, 4] * 10)
    body = api.post(
        "/api/v1/reports/", {"candidate": cand.pk, "baseline": base.pk}, format="json"
    ).json()
    assert body["figures"]["candidate_profile"]["stability"] == {}
    assert "stability" not in [c["key"] for c in body["charts"]]
    (found,) = api.get(f"/api/v1/evaluations/{cand.pk}/").json()["results"]
    assert (found["mean_turns"], found["agreement"]) == (None, None)
    html = api.get(f"/api/v1/reports/{body['id']}/export/").content.decode()
    assert "Stability over turns" not in html


@pytest.mark.slow
def test_the_job_plays_k_episodes_of_each_held_out_task(
    owner,
    team,
    settings,
    models_dir,  # noqa: F811
):
    settings.MODELS_DIR = models_dir
    family = families.create_family(
        owner, team, name="Guess", slug="guess", kind="guess-number",
        environment={"kind": "guess-number", "limits": {"max_turns": 5}},
    )  # fmt: skip
    tasks = pools.generated_tasks(family, {2: 20, 3: 20}, seed=0)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    verifier = verifiers.create_verifier(
        owner, team, name="Guess", slug="guess-exact", family_kind="guess-number"
    ).latest_version()
    assert verifier is not None
    entries = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):
        job = evaluation.start(
            owner, team, entries, evaluation.Settings(k=3, max_tasks=4), model=TINY_MODEL
        )
    evaluation.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == EvaluationState.SUCCEEDED, job.message
    results = list(job.results.order_by("id"))
    held_out = [t.meta["content_hash"] for t in pinning.version_tasks(version.pk, "held_out", 4)]
    assert [r.task_hash for r in results] == held_out and held_out
    for r in results:
        played = r.episodes
        assert played is not None and len(played["episodes"]) == 3
        # The task's own budget (a bisection's turns plus one) within the family's limit of 5.
        assert 1 <= played["turn_budget"] <= 5
        assert sum(e["passed"] for e in played["episodes"]) == r.passes
        for e in played["episodes"]:
            assert 1 <= e["turns"] <= played["turn_budget"]
            assert e["tokens"] >= e["assistant_tokens"] > 0
        assert sum(r.errors.values()) == 3 - r.passes
    outcomes = evaluation.outcomes(job)
    assert all(o.episodes is not None for o in outcomes)
