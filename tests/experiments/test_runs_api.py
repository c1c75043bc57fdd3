"""/api/v1/runs/: list, retrieve, cancel, checkpoints, rollouts and compare, per persona."""

from __future__ import annotations

from unittest import mock

import pytest
from django.utils import timezone

from experiments.models import Checkpoint, Rollout, Run, RunState
from experiments.services import experiments, runs
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def experiment(owner, team):
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    return experiments.create_experiment(owner, team, name="Sort", config=config)


@pytest.fixture
def run(owner, experiment):
    with mock.patch("crucible.jobs.send"):
        return runs.launch(owner, experiment)


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def test_it_shows_a_run_with_its_state_and_timestamps(api, run):
    body = api.get(f"/api/v1/runs/{run.pk}/").json()
    assert body["state"] == "queued" and body["number"] == 1 and body["max_steps"] == 3
    assert body["experiment_name"] == "Sort" and body["team"] == "reasoning"
    assert body["started_at"] is None and body["attempts"] == 0 and body["log_tail"] == ""
    assert set(body) >= {"worker", "heartbeat_at", "failure_reason", "summary", "step"}


def test_it_lists_runs_filtered_by_experiment_and_state(api, owner, experiment, run):
    with mock.patch("crucible.jobs.send"):
        second = runs.launch(owner, experiment)
    runs.claim(second.pk, "celery@w")
    listed = api.get(f"/api/v1/runs/?experiment={experiment.pk}").json()["results"]
    assert [r["id"] for r in listed] == [second.pk, run.pk] and "log_tail" not in listed[0]
    running = api.get("/api/v1/runs/?state=running").json()["results"]
    assert [r["id"] for r in running] == [second.pk]


def test_it_hides_runs_from_outsiders(client_for, outsider, run):
    stranger = client_for(outsider)
    assert stranger.get(f"/api/v1/runs/{run.pk}/").status_code == 404
    assert stranger.get("/api/v1/runs/").json()["results"] == []
    assert stranger.post(f"/api/v1/runs/{run.pk}/cancel/").status_code == 404
    assert stranger.get(f"/api/v1/runs/{run.pk}/rollouts/").status_code == 404
    assert stranger.get(f"/api/v1/runs/{run.pk}/checkpoints/").status_code == 404


def test_it_cancels_a_queued_run_at_once(api, run):
    response = api.post(f"/api/v1/runs/{run.pk}/cancel/")
    assert response.status_code == 200
    assert response.json()["state"] == "cancelled" and response.json()["finished_at"]
    assert runs.claim(run.pk, "celery@late") is None  # a late delivery finds nothing to do


def test_it_asks_a_running_run_to_stop_at_its_next_step(api, run):
    runs.claim(run.pk, "celery@w")
    body = api.post(f"/api/v1/runs/{run.pk}/cancel/").json()
    assert (body["state"], body["cancel_requested"]) == ("running", True)
    assert runs.should_stop(Run.objects.get(pk=run.pk))


def test_it_refuses_to_cancel_a_finished_run(api, run):
    Run.objects.filter(pk=run.pk).update(state=RunState.SUCCEEDED)
    response = api.post(f"/api/v1/runs/{run.pk}/cancel/")
    assert response.status_code == 400
    assert fields(response) == {"state": "the run has already finished (succeeded)"}


def test_it_lets_a_viewer_watch_but_not_cancel(client_for, teammate, run):
    viewer = client_for(teammate)
    assert viewer.get(f"/api/v1/runs/{run.pk}/").status_code == 200
    assert viewer.post(f"/api/v1/runs/{run.pk}/cancel/").status_code == 403


def test_it_lists_checkpoints_by_step(api, run, tmp_path):
    adapter = tmp_path / "step-000004"
    (adapter / "model").mkdir(parents=True)
    (adapter / "model" / "adapter_config.json").write_text("{}")
    Checkpoint.objects.create(run=run, step=4, path=str(adapter), metrics={"kl": 0.1})
    Checkpoint.objects.create(run=run, step=2, path="/x/step-000002", size_bytes=10)
    body = api.get(f"/api/v1/runs/{run.pk}/checkpoints/").json()
    assert [(c["step"], c["name"]) for c in body] == [(2, "step-000002"), (4, "step-000004")]
    assert body[1]["metrics"] == {"kl": 0.1} and "path" not in body[0]
    assert [c["adapter"] for c in body] == [False, True]  # a LoRA checkpoint also exports alone


def rollout(run, step, group, sample, passed, family="digits"):
    return Rollout.objects.create(
        run=run,
        step=step,
        group=group,
        sample=sample,
        family=family,
        prompt="sort 21=",
        completion="12" if passed else "21",
        passed=passed,
        reward=1.0 if passed else 0.0,
        parts={"outcome": 1.0 if passed else 0.0},
        layers=[{"name": "answer", "passed": passed, "error_type": "wrong_answer"}],
    )


def test_it_pages_rollouts_filtered_by_step_family_and_verdict(api, run):
    for step in (1, 2):
        for sample in range(4):
            rollout(run, step, 0, sample, passed=sample % 2 == 0)
    rollout(run, 2, 1, 0, passed=True, family="other")
    url = f"/api/v1/runs/{run.pk}/rollouts/"
    body = api.get(url, {"step": 2, "family": "digits", "passed": "true", "page_size": 1}).json()
    assert body["count"] == 2 and len(body["results"]) == 1
    first = body["results"][0]
    assert (first["step"], first["group"], first["sample"], first["passed"]) == (2, 0, 0, True)
    assert first["layers"][0]["name"] == "answer" and first["parts"] == {"outcome": 1.0}
    assert api.get(url, {"passed": "maybe"}).status_code == 400
    assert api.get(url, {"step": "x"}).status_code == 400


def test_it_compares_final_metrics_and_configuration_differences(api, owner, experiment, run):
    clone = experiments.clone_experiment(owner, experiment, overrides={"seed": 5})
    with mock.patch("crucible.jobs.send"):
        other = runs.launch(owner, clone)
    Run.objects.filter(pk=run.pk).update(summary={"reward/mean": 0.5, "kl": 0.1})
    Run.objects.filter(pk=other.pk).update(summary={"reward/mean": 0.7})
    body = api.get(f"/api/v1/runs/compare/?ids={run.pk},{other.pk}").json()
    assert [r["id"] for r in body["runs"]] == [run.pk, other.pk]
    assert body["metrics"] == [
        {"key": "kl", "values": [0.1, None]},
        {"key": "reward/mean", "values": [0.5, 0.7]},
    ]
    assert body["config_differences"] == [{"path": "seed", "values": [0, 5]}]


def test_it_compares_only_runs_the_caller_can_see(api, client_for, outsider, run):
    assert api.get("/api/v1/runs/compare/?ids=1").status_code == 400
    assert api.get("/api/v1/runs/compare/?ids=a,b").status_code == 400
    response = client_for(outsider).get(f"/api/v1/runs/compare/?ids={run.pk},{run.pk + 1}")
    assert response.status_code == 404


def test_it_records_when_a_run_was_claimed_and_by_whom(api, run):
    before = timezone.now()
    claimed = runs.claim(run.pk, "celery@gpu-1")
    assert claimed is not None and claimed.started_at >= before
    body = api.get(f"/api/v1/runs/{run.pk}/").json()
    assert (body["state"], body["worker"], body["attempts"]) == ("running", "celery@gpu-1", 1)
    assert body["heartbeat_at"] is not None
