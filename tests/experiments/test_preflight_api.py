"""/api/v1/preflights/: start a pre-flight on a configuration or an experiment, per persona;
and the job itself in this process, on the tiny model."""

from __future__ import annotations

import asyncio
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from crucible.accounts.models import AuditEvent
from crucible.realtime.groups import team_group
from experiments.jobs import RUN_PREFLIGHT
from experiments.models import PreflightReport, PreflightState
from experiments.services import experiments
from experiments.services import preflight as services
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    advertise,
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)

pytestmark = pytest.mark.django_db
URL = "/api/v1/preflights/"


@pytest.fixture
def pinned(owner, team):
    advertise()
    return digit_version(owner, team), digit_verifier(owner, team)


@pytest.fixture
def sent():
    """What would go to the broker: the jobs sent, each with its arguments."""
    with mock.patch("crucible.jobs.send") as send:
        yield send


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def start(client, pinned, **body):
    version, verifier = pinned
    return client.post(
        URL, {"team": "reasoning", "config": config_for(version, verifier), **body}, format="json"
    )


def test_it_queues_a_preflight_of_a_validated_configuration(
    api, pinned, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = start(api, pinned, tasks_per_level=8)
    assert response.status_code == 202, response.json()
    body = response.json()
    assert (body["state"], body["progress"], body["result"]) == ("queued", 0.0, None)
    assert body["tasks_per_level"] == 8 and body["experiment"] is None
    assert body["config"]["curriculum"]["families"][0]["levels"] == [2, 3]  # resolved
    sent.assert_called_once_with(RUN_PREFLIGHT, body["id"])
    assert AuditEvent.objects.filter(action="preflight.started").count() == 1
    assert api.get(URL, {"config_hash": body["config_hash"]}).json()["count"] == 1


def test_it_refuses_a_configuration_it_cannot_sample_naming_the_field(api, pinned, sent):
    response = start(api, pinned, config={"model": "tiny-digit-sort"})
    assert response.status_code == 400
    assert fields(response) == {"config.curriculum": "this field is required"}
    version, verifier = pinned
    config = config_for(version, verifier, model="no-such-model")
    response = api.post(URL, {"team": "reasoning", "config": config}, format="json")
    assert response.status_code == 400 and "config.model" in fields(response)
    too_many = start(api, pinned, tasks_per_level=10_000)
    assert "tasks_per_level" in fields(too_many)
    assert api.post(URL, {"team": "reasoning"}, format="json").status_code == 400
    assert not PreflightReport.objects.exists() and not sent.called


def test_it_samples_an_experiment_and_keeps_the_report_with_it(api, owner, team, pinned, sent):
    version, verifier = pinned
    experiment = experiments.create_experiment(
        owner, team, name="Sort", config=config_for(version, verifier)
    )
    response = api.post(URL, {"experiment": experiment.pk}, format="json")
    assert response.status_code == 202, response.json()
    assert response.json()["experiment"] == experiment.pk
    assert api.get(URL, {"experiment": experiment.pk}).json()["count"] == 1


def test_it_keeps_a_wizard_preflight_with_the_experiment_made_from_its_configuration(
    api, owner, team, pinned, sent
):
    version, verifier = pinned
    report_id = start(api, pinned).json()["id"]
    other = config_for(version, verifier, seed=7)  # another configuration: not this report's
    experiments.create_experiment(owner, team, name="Other", config=other)
    assert PreflightReport.objects.get(pk=report_id).experiment is None
    created = experiments.create_experiment(
        owner, team, name="Sort", config=config_for(version, verifier)
    )
    assert PreflightReport.objects.get(pk=report_id).experiment == created


def test_it_hides_preflights_and_experiments_of_other_teams(
    api, client_for, owner, team, outsider, pinned, sent
):
    report_id = start(api, pinned).json()["id"]
    version, verifier = pinned
    experiment = experiments.create_experiment(
        owner, team, name="Sort", config=config_for(version, verifier)
    )
    stranger = client_for(outsider)
    assert stranger.get(f"{URL}{report_id}/").status_code == 404
    assert stranger.get(URL).json()["count"] == 0
    assert stranger.post(URL, {"experiment": experiment.pk}, format="json").status_code == 404
    assert start(stranger, pinned).status_code == 404  # the team is not theirs
    assert PreflightReport.objects.count() == 1


def test_it_lets_a_viewer_read_but_not_start_one(api, client_for, teammate, pinned, sent):
    report_id = start(api, pinned).json()["id"]
    viewer = client_for(teammate)
    assert viewer.get(f"{URL}{report_id}/").status_code == 200
    assert start(viewer, pinned).status_code == 403


# --- the job, in this process --------------------------------------------------------------


@pytest.fixture
def folders(settings, models_dir, tmp_path):  # noqa: F811
    settings.MODELS_DIR = models_dir


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_it_samples_every_level_and_reports_progress_live(owner, team, folders):
    advertise()
    version = digit_version(owner, team, counts={2: 12, 3: 12})
    config = config_for(version, digit_verifier(owner, team))
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(team_group(team.pk), channel)
    with mock.patch("crucible.jobs.send"):
        report = services.start(owner, team, config, tasks_per_level=6)
    services.run_job(report.pk)
    services.run_job(report.pk)  # a re-delivered message finds it taken and does nothing
    report.refresh_from_db()
    assert report.state == PreflightState.SUCCEEDED, report.message
    assert report.progress == 1.0 and report.started_at and report.finished_at
    (family,) = report.result["families"]
    assert family["family"] == "digits" and family["completions"] == 2 * 6 * 4
    assert [(lv["level"], lv["tasks"]) for lv in family["levels"]] == [(2, 6), (3, 6)]
    assert 0 <= family["frac_reward_zero_std"] <= 1 and family["latency_ms"]["p95"] > 0
    assert report.result["settings"]["group_size"] == 4
    assert report.message.startswith("48 completions judged")
    updates = [
        (e["state"], e["progress"])
        for e in received(layer, channel)
        if e["type"] == "preflight.updated" and e["preflight"] == report.pk
    ]
    assert updates == [("running", 0.0), ("running", 1.0), ("succeeded", 1.0)]


def received(layer, channel: str) -> list[dict]:
    """The events that reached ``channel``, until none comes for a second."""

    async def drain() -> list[dict]:
        events = []
        while True:
            try:
                events.append((await asyncio.wait_for(layer.receive(channel), 1))["event"])
            except TimeoutError:
                return events

    return async_to_sync(drain)()
