"""A team's health-signal thresholds over the API, and the signals on a run."""

from __future__ import annotations

import pytest

from crucible.accounts.models import AuditEvent
from experiments.models import HealthSettings, Run
from experiments.services import experiments, health, runs
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db
URL = "/api/v1/teams/reasoning/health-thresholds/"


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def test_it_shows_the_default_thresholds_to_members_only(api, client_for, teammate, outsider):
    body = client_for(teammate).get(URL).json()
    assert body["every"] == 10 and body["window"] == 40
    assert body["signals"]["reward_vs_heldout"] == {
        "threshold": 0.15,
        "pause_on_breach": False,
        "enabled": True,
    }
    assert client_for(outsider).get(URL).status_code == 404


def test_an_editor_changes_some_thresholds_and_it_is_audited(client_for, editor, team):
    change = {"every": 5, "signals": {"kl_spike": {"pause_on_breach": True}}}
    body = client_for(editor).put(URL, change, format="json").json()
    assert body["every"] == 5 and body["window"] == 40
    assert body["signals"]["kl_spike"] == {
        "threshold": 6.0,
        "pause_on_breach": True,
        "enabled": True,
    }
    assert health.team_settings(team).signals["kl_spike"].pause_on_breach
    audit = AuditEvent.objects.get(action="health_settings.changed")
    assert audit.actor == editor and audit.changes == change
    again = client_for(editor).put(URL, {"signals": {"kl_spike": {"threshold": 4}}}, format="json")
    assert again.json()["signals"]["kl_spike"]["pause_on_breach"] is True


def test_a_viewer_cannot_change_thresholds(client_for, teammate):
    assert client_for(teammate).put(URL, {"every": 5}, format="json").status_code == 403
    assert not HealthSettings.objects.exists()


def test_bad_thresholds_name_the_field_and_change_nothing(api, team):
    bad = {
        "every": 0,
        "speed": 1,
        "signals": {"entropy_collapse": {"threshold": -1, "pause_on_breach": "yes"}, "vibes": {}},
    }
    response = api.put(URL, bad, format="json")
    assert response.status_code == 400
    assert fields(response) == {
        "every": "must be between 1 and 100000, got 0",
        "speed": "is not a setting",
        "signals.entropy_collapse.threshold": "must be between 0 and 1e+06, got -1",
        "signals.entropy_collapse.pause_on_breach": "must be true or false",
        "signals.vibes": (
            "is not a signal (one of reward_vs_heldout, length_blowup, kl_spike, "
            "entropy_collapse, curriculum_stuck, part_dominates, judge_flips)"
        ),
    }
    assert api.put(URL, [1, 2], format="json").status_code == 400
    assert not HealthSettings.objects.exists()
    assert not AuditEvent.objects.filter(action="health_settings.changed").exists()


def test_a_run_carries_its_signals(api, owner, team):
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    run = runs.claim(runs.launch(owner, experiment).pk, "celery@w")
    assert api.get(f"/api/v1/runs/{run.pk}/").json()["health"] == {"step": None, "signals": []}
    Run.objects.filter(pk=run.pk).update(step=10)
    health.check(Run.objects.get(pk=run.pk), 10)
    shown = api.get(f"/api/v1/runs/{run.pk}/").json()["health"]
    assert shown["step"] == 10
    assert {s["name"]: s["state"] for s in shown["signals"]}["reward_vs_heldout"] == "unavailable"
    assert shown["signals"][0]["label"] == "Reward rising, held-out flat"
