"""Outside runs over /api/v1/runs/: created by a trainer outside the platform, streamed into,
finished, resumed; left alone by the reaper and the resender; per persona."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from experiments.models import Run, RunEvent, RunEventKind
from experiments.services import experiments, runs, workers
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def start(api, **body):
    response = api.post("/api/v1/runs/", {"team": "reasoning", **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def send(api, run_id: int, points: list[tuple[str, int, float]]):
    items = [{"key": k, "step": s, "value": v} for k, s, v in points]
    return api.post(f"/api/v1/runs/{run_id}/metrics/", items, format="json")


def test_it_creates_a_running_outside_run_no_worker_claims(api, team):
    body = start(
        api,
        name="trl-grpo",
        params={"lr": 0.001, "optim": {"name": "adamw"}},
        tags={"stage": "sweep"},
        notes="first try",
        base_model="Qwen/Qwen2-0.5B",
        max_steps=100,
    )
    assert (body["source"], body["state"], body["title"], body["number"]) == (
        "external", "running", "trl-grpo", 1,
    )  # fmt: skip
    assert body["experiment"] is None and body["experiment_name"] is None
    assert body["params"]["optim"] == {"name": "adamw"} and body["tags"] == {"stage": "sweep"}
    assert runs.claim(body["id"], "celery@w") is None
    assert start(api, name="second")["number"] == 2


def test_the_reaper_and_the_resender_leave_an_outside_run_alone(api, team):
    body = start(api, name="slow trainer")
    long_ago = timezone.now() - timedelta(days=1)
    Run.objects.filter(pk=body["id"]).update(heartbeat_at=long_ago, queued_at=long_ago)
    later = timezone.now() + timedelta(days=1)
    assert workers.reap_stale_runs(later) == [] and workers.resend_queued_runs(later) == []
    assert Run.objects.get(pk=body["id"]).state == "running"


def test_ingest_keeps_its_summary_step_and_health(api, team):
    run_id = start(api, name="trl")["id"]
    assert send(api, run_id, [("reward/mean", 1, 0.2), ("reward/mean", 2, 0.4)]).status_code == 200
    assert send(api, run_id, [("kl", 2, 0.01), ("reward/mean", 1, 0.1)]).status_code == 200
    run = Run.objects.get(pk=run_id)
    # the late point of step 1 does not hide step 2's value
    assert run.summary == {"reward/mean": 0.4, "kl": 0.01} and run.step == 2
    assert api.get(f"/api/v1/runs/{run_id}/").json()["summary"]["reward/mean"] == 0.4


def test_it_finishes_an_outside_run_as_its_trainer_says(api, team):
    done = start(api, name="a")["id"]
    failed = start(api, name="b")["id"]
    killed = start(api, name="c")["id"]
    for run_id, status in ((done, "finished"), (failed, "failed"), (killed, "killed")):
        body = {"status": status, "reason": "out of memory"}
        response = api.post(f"/api/v1/runs/{run_id}/finish/", body, format="json")
        assert response.status_code == 200
    states = dict(Run.objects.values_list("pk", "state"))
    assert (states[done], states[failed], states[killed]) == ("succeeded", "failed", "cancelled")
    assert Run.objects.get(pk=failed).failure_reason == "out of memory"
    again = api.post(f"/api/v1/runs/{done}/finish/", {"status": "finished"}, format="json")
    assert again.status_code == 200  # a retried request
    other = api.post(f"/api/v1/runs/{done}/finish/", {"status": "failed"}, format="json")
    assert other.status_code == 400 and "resume it" in fields(other)["status"]
    assert send(api, done, [("kl", 3, 0.1)]).status_code == 409


def test_a_resumed_run_keeps_unchanged_steps_and_replaces_changed_ones(api, team):
    run_id = start(api, name="a", tags={"stage": "one"})["id"]
    send(api, run_id, [("loss", 1, 1.0), ("loss", 2, 0.5)])
    api.post(f"/api/v1/runs/{run_id}/finish/", {"status": "failed"}, format="json")
    response = api.post(
        "/api/v1/runs/",
        {"team": "reasoning", "resume": run_id, "tags": {"retry": "1"}},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["state"], body["finished_at"], body["resumed_from_step"]) == ("running", None, 2)
    assert body["tags"] == {"stage": "one", "retry": "1"}
    seq = send(api, run_id, [("loss", 1, 1.0)]).json()["seq"]
    assert send(api, run_id, [("loss", 1, 1.0)]).json()["seq"] == seq  # unchanged: kept
    send(api, run_id, [("loss", 2, 0.7)])
    raw = api.get(f"/api/v1/runs/{run_id}/metrics/raw/?key=loss").json()["points"]
    assert raw["step"] == [1, 2] and raw["value"] == [1.0, 0.7]
    event = RunEvent.objects.get(run_id=run_id)
    assert event.kind == RunEventKind.RESUME and "its trainer resumed it at step 2" in event.reason


def test_it_links_an_outside_run_to_an_experiment_of_the_team(api, owner, team, outsider):
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
        runs.launch(owner, experiment)
    body = start(api, experiment=experiment.pk)
    assert (body["number"], body["title"], body["experiment_name"]) == (2, "Sort", "Sort")
    missing = api.post("/api/v1/runs/", {"team": "reasoning", "experiment": 10**9}, format="json")
    assert missing.status_code == 404


def test_it_refuses_bad_bodies_naming_the_field(api, team):
    cases = [
        ({"params": [1, 2]}, "params"),
        ({"params": {"x": "y" * 70_000}}, "params"),
        ({"tags": {"bad name!": "x"}}, "tags"),
        ({"tags": {f"t{i}": "x" for i in range(51)}}, "tags"),
        ({"name": "x" * 121}, "name"),
        ({"unknown": 1}, "unknown"),
        ({"max_steps": -1}, "max_steps"),
    ]
    for extra, field in cases:
        response = api.post("/api/v1/runs/", {"team": "reasoning", **extra}, format="json")
        assert response.status_code == 400, extra
        assert field in fields(response), (extra, response.json())
    no_team = api.post("/api/v1/runs/", {"name": "x"}, format="json")
    assert no_team.status_code == 400 and "team" in fields(no_team)


def test_platform_runs_are_not_finished_or_resumed_from_outside(api, owner, team):
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
        run = runs.launch(owner, experiment)
    finish = api.post(f"/api/v1/runs/{run.pk}/finish/", {"status": "finished"}, format="json")
    assert finish.status_code == 400 and "source" in fields(finish)
    resume = api.post("/api/v1/runs/", {"team": "reasoning", "resume": run.pk}, format="json")
    assert resume.status_code == 400 and "source" in fields(resume)


def test_viewers_and_outsiders_cannot_create_or_finish(api, client_for, teammate, outsider, team):
    run_id = start(api, name="a")["id"]
    viewer, stranger = client_for(teammate), client_for(outsider)
    body = {"team": "reasoning", "name": "x"}
    assert viewer.post("/api/v1/runs/", body, format="json").status_code == 403
    assert stranger.post("/api/v1/runs/", body, format="json").status_code == 404
    done = {"status": "finished"}
    assert viewer.post(f"/api/v1/runs/{run_id}/finish/", done, format="json").status_code == 403
    assert stranger.post(f"/api/v1/runs/{run_id}/finish/", done, format="json").status_code == 404
    resumed = {"team": "elsewhere", "resume": run_id}
    assert stranger.post("/api/v1/runs/", resumed, format="json").status_code == 404


def test_a_person_cancels_an_outside_run_at_once_and_its_trainer_is_told(api, team):
    run_id = start(api, name="a")["id"]
    body = api.post(f"/api/v1/runs/{run_id}/cancel/").json()
    assert body["state"] == "cancelled" and body["finished_at"]
    refused = send(api, run_id, [("kl", 1, 0.1)])
    assert refused.status_code == 409 and "cancelled" in refused.json()["errors"][0]["message"]


def test_nothing_here_pauses_or_steers_an_outside_run(api, team):
    run_id = start(api, name="a")["id"]
    for method, url in (
        ("post", "pause/"), ("post", "resume/"), ("get", "curriculum/"), ("post", "curriculum/"),
    ):  # fmt: skip
        response = getattr(api, method)(f"/api/v1/runs/{run_id}/{url}", {}, format="json")
        assert response.status_code == 400, url
        assert "trainer runs elsewhere" in fields(response)["source"]
    assert Run.objects.get(pk=run_id).state == "running"
    assert api.get(f"/api/v1/runs/{run_id}/usage/").status_code == 200
    assert api.get(f"/api/v1/runs/{run_id}/events/").status_code == 200


def test_its_health_is_checked_as_its_points_arrive_and_when_it_finishes(api, team):
    run_id = start(api, name="a")["id"]
    send(api, run_id, [("reward/mean", 5, 0.2)])
    assert Run.objects.get(pk=run_id).health == {}  # not due: every 10 steps by default
    send(api, run_id, [("reward/mean", 10, 0.3)])
    assert Run.objects.get(pk=run_id).health["step"] == 10
    send(api, run_id, [("reward/mean", 13, 0.3)])
    api.post(f"/api/v1/runs/{run_id}/finish/", {"status": "finished"}, format="json")
    assert Run.objects.get(pk=run_id).health["step"] == 13  # and at its end


def test_it_is_compared_with_platform_runs(api, owner, team):
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
        platform = runs.launch(owner, experiment)
    outside = start(api, name="trl", params={"lr": 0.001})["id"]
    send(api, outside, [("reward/mean", 3, 0.5)])
    body = api.get(f"/api/v1/runs/compare/?ids={outside},{platform.pk}").json()
    assert [(r["experiment_name"], r["source"]) for r in body["runs"]] == [
        ("trl", "external"), ("Sort", "platform"),
    ]  # fmt: skip
    assert {"key": "reward/mean", "values": [0.5, None]} in body["metrics"]
    paths = {row["path"] for row in body["config_differences"]}
    assert {"params.lr", "source", "model"} <= paths
