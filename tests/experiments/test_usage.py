"""Usage, cost and quotas: what a run charges, its budget, the team's quota, the usage API."""

from __future__ import annotations

from unittest import mock

import pytest

from experiments.adapters import PoolItem
from experiments.models import CostRate, Run, RunEvent, RunState, TeamQuota, Usage
from experiments.services import experiments, runs, usage
from experiments.services.recording import RunRecorder
from experiments.services.usage import Amount, UsageMeter
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from training.interfaces import Completion, RewardResult

pytestmark = pytest.mark.django_db


@pytest.fixture
def pinned(owner, team):
    advertise()
    return digit_version(owner, team), digit_verifier(owner, team)


@pytest.fixture
def experiment(owner, team, pinned):
    return experiments.create_experiment(owner, team, name="Sort", config=config_for(*pinned))


@pytest.fixture(autouse=True)
def no_broker():
    with mock.patch("crucible.jobs.send"):
        yield


@pytest.fixture
def run(owner, experiment):
    return runs.claim(runs.launch(owner, experiment).pk, "celery@w")


@pytest.fixture
def gpu_rate():
    return CostRate.objects.create(
        queue="gpu",
        per_worker_hour=2.0,
        per_million_generated_tokens=10.0,
        per_million_judge_tokens=100.0,
        currency="EUR",
    )


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def completion(family: str, tokens: int, judge: int = 0) -> Completion:
    layers = [{"kind": "model_judge", "info": {"tokens": judge}}] if judge else []
    result = RewardResult(1.0, True, {}, None, {"layers": layers})
    return Completion(PoolItem("p", {}, family, 2), "t", result, 0, 0, 0.0, tokens)


def test_it_charges_each_family_at_the_queues_rate_and_keeps_the_runs_totals(run, gpu_rate):
    cost = usage.charge(
        run.team_id,
        "gpu",
        {"digits": Amount(1800.0, 100_000, 1000), "words": Amount(1800.0, 0, 0)},
        run_id=run.pk,
    )
    assert cost == pytest.approx(1.0 + 1.0 + 0.1 + 1.0)
    usage.charge(run.team_id, "gpu", {"digits": Amount(3600.0, 0, 0)}, run_id=run.pk)
    rows = {u.family: u for u in Usage.objects.filter(run=run)}
    assert set(rows) == {"digits", "words"} and Usage.objects.count() == 2  # one row each
    assert rows["digits"].worker_seconds == 5400 and rows["digits"].cost == pytest.approx(4.1)
    current = Run.objects.get(pk=run.pk)
    assert (current.worker_seconds, current.generated_tokens, current.judge_tokens) == (
        7200,
        100_000,
        1000,
    )
    assert current.cost == pytest.approx(5.1)


def test_it_meters_an_attempt_by_step_splitting_time_and_tokens_by_family(run, gpu_rate):
    now = [100.0]
    meter = UsageMeter(run, processes=2, clock=lambda: now[0])
    meter.completions([completion("digits", 6, judge=40), *[completion("words", 3)] * 3])
    now[0] += 10.0  # 10 s on 2 processes
    meter.charge({"perf/tokens_per_s": 1.0, "perf/step_s": 10.0})
    rows = {u.family: u for u in Usage.objects.filter(run=run)}
    assert rows["digits"].worker_seconds == pytest.approx(5.0)  # a quarter of the completions
    assert rows["words"].worker_seconds == pytest.approx(15.0)
    assert (rows["digits"].generated_tokens, rows["digits"].judge_tokens) == (12, 80)
    assert rows["words"].generated_tokens == 18
    now[0] += 4.0  # the teardown after the last step: split like the last step
    meter.charge()
    assert Run.objects.get(pk=run.pk).worker_seconds == pytest.approx(28.0)


def test_it_charges_the_tokens_of_a_step_without_completions_unsplit(run):
    meter = UsageMeter(run, clock=lambda: 0.0)
    meter.charge({"perf/tokens_per_s": 50.0, "perf/step_s": 2.0})
    assert Usage.objects.get(run=run).family == "" and run.usage.get().generated_tokens == 100


def test_it_pauses_a_run_that_crosses_its_budget_and_says_why(run):
    Run.objects.filter(pk=run.pk).update(budget={"max_worker_hours": 0.01, "max_cost": None})
    run.refresh_from_db()
    now = [0.0]
    recorder = RunRecorder(
        run, rollout_groups=0, sources={}, meter=UsageMeter(run, clock=lambda: now[0])
    )
    now[0] = 30.0
    recorder.progress(1, 3, {})
    assert not runs.should_stop(run)
    now[0] = 40.0  # 40 s > 36 s
    recorder.progress(2, 3, {})
    current = Run.objects.get(pk=run.pk)
    assert current.pause_requested and runs.should_stop(run) and recorder.checkpoint_on_stop()
    assert current.pause_reason == (
        "The run used 0.0111 worker-hours, its budget is 0.01: raise its budget to resume it."
    )
    assert RunEvent.objects.get(run=run).kind == "budget"


def test_it_resumes_a_run_over_budget_only_with_a_higher_one(api, run):
    Run.objects.filter(pk=run.pk).update(
        state=RunState.PAUSED, worker_seconds=7200, budget={"max_worker_hours": 1, "max_cost": None}
    )
    refused = api.post(f"/api/v1/runs/{run.pk}/resume/", {}, format="json")
    assert refused.status_code == 400
    assert fields(refused) == {
        "budget": "The run used 2 worker-hours, its budget is 1: raise its budget to resume it."
    }
    bad = api.post(f"/api/v1/runs/{run.pk}/resume/", {"budget": {"max_cost": -1}}, format="json")
    assert fields(bad) == {"budget.max_cost": "must be null (no limit) or a number above 0"}
    raised = {"budget": {"max_worker_hours": 3}}
    body = api.post(f"/api/v1/runs/{run.pk}/resume/", raised, format="json").json()
    assert body["state"] == "queued"
    assert body["budget"] == {"max_worker_hours": 3.0, "max_cost": None}


def test_it_copies_the_experiments_budget_to_each_run(owner, team, pinned):
    config = config_for(*pinned, budget={"max_cost": 12.5})
    experiment = experiments.create_experiment(owner, team, name="Capped", config=config)
    assert experiment.config["budget"] == {"max_worker_hours": None, "max_cost": 12.5}
    assert runs.launch(owner, experiment).budget == {"max_worker_hours": None, "max_cost": 12.5}


def test_it_names_a_bad_budget_in_the_experiment(api, pinned):
    config = config_for(*pinned, budget={"max_cost": "lots", "max_gpus": 2})
    body = {"team": "reasoning", "name": "Bad", "config": config}
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code == 400
    assert fields(response) == {
        "config.budget.max_gpus": "unknown field",
        "config.budget.max_cost": "must be null (no limit) or a number above 0",
    }


def test_it_refuses_a_launch_over_the_teams_concurrent_runs(api, team, experiment, run):
    TeamQuota.objects.create(team=team, max_concurrent_runs=1)
    response = api.post(f"/api/v1/experiments/{experiment.pk}/launch/")
    assert response.status_code == 409
    assert response.json()["errors"] == [
        {
            "field": None,
            "code": "quota_exceeded",
            "message": "Team 'reasoning' may have 1 runs queued or running at once and has 1: "
            "wait for one to finish, pause or cancel one, or ask an admin to raise the quota.",
        }
    ]
    assert Run.objects.count() == 1
    api.post(f"/api/v1/runs/{run.pk}/pause/")
    Run.objects.filter(pk=run.pk).update(state=RunState.PAUSED)  # the worker paused it
    second = api.post(f"/api/v1/experiments/{experiment.pk}/launch/")
    assert second.status_code == 202  # a paused run holds no slot
    assert api.post(f"/api/v1/runs/{run.pk}/resume/").status_code == 409  # but takes one back


def test_it_refuses_a_launch_once_the_teams_monthly_hours_are_used(api, team, experiment, run):
    TeamQuota.objects.create(team=team, max_worker_hours_per_month=1.5)
    usage.charge(team.pk, "gpu", {"digits": Amount(1.5 * 3600)}, run_id=run.pk)
    response = api.post(f"/api/v1/experiments/{experiment.pk}/launch/")
    assert response.status_code == 409
    assert "used 1.5 of its 1.5 worker-hours this month" in response.json()["errors"][0]["message"]


def test_it_reports_a_teams_month_by_queue_family_and_run(api, team, run, gpu_rate):
    TeamQuota.objects.create(team=team, max_concurrent_runs=3)
    usage.charge(team.pk, "gpu", {"digits": Amount(3600.0, 1_000_000, 0)}, run_id=run.pk)
    usage.charge(team.pk, "cpu", {"digits": Amount(600.0)}, kind="grading")
    body = api.get("/api/v1/usage/?team=reasoning").json()
    assert body["totals"]["worker_seconds"] == 4200 and body["currency"] == "EUR"
    assert body["totals"]["cost"] == pytest.approx(12.0)
    assert [(r["key"], r["worker_seconds"]) for r in body["by_queue"]] == [
        ("gpu", 3600),
        ("cpu", 600),
    ]
    assert [(r["key"], r["label"]) for r in body["by_kind"]] == [
        ("training", "Training"),
        ("grading", "Difficulty grading"),
    ]
    assert [(r["key"], r["worker_seconds"]) for r in body["by_family"]] == [("digits", 4200)]
    assert [(r["run"], r["experiment_name"], r["number"]) for r in body["by_run"]] == [
        (run.pk, "Sort", 1)
    ]
    assert body["quota"] == {
        "max_concurrent_runs": 3,
        "active_runs": 1,
        "max_worker_hours_per_month": None,
        "used_worker_hours": pytest.approx(4200 / 3600),
    }
    assert api.get("/api/v1/usage/?team=reasoning&month=2020-01").json()["totals"]["cost"] == 0


def test_it_shows_usage_only_to_the_teams_members(client_for, outsider, teammate, api):
    assert client_for(outsider).get("/api/v1/usage/?team=reasoning").status_code == 404
    assert client_for(teammate).get("/api/v1/usage/?team=reasoning").status_code == 200
    assert fields(api.get("/api/v1/usage/?month=May")) == {"month": "must be YYYY-MM"}
    rates = api.get("/api/v1/usage/rates/").json()
    assert [r["queue"] for r in rates] == ["gpu", "cpu"]


def test_it_reports_a_runs_usage_and_budget(api, client_for, outsider, run, gpu_rate):
    usage.charge(run.team_id, "gpu", {"digits": Amount(1800.0)}, run_id=run.pk)
    body = api.get(f"/api/v1/runs/{run.pk}/usage/").json()
    assert body["totals"]["cost"] == pytest.approx(1.0) and body["currency"] == "EUR"
    assert [r["key"] for r in body["by_family"]] == ["digits"]
    assert body["budget"] == {"max_worker_hours": None, "max_cost": None, "problem": None}
    assert client_for(outsider).get(f"/api/v1/runs/{run.pk}/usage/").status_code == 404
