"""/api/v1/runs/<id>/pause|resume|curriculum|events/: live control of a run, per persona."""

from __future__ import annotations

from unittest import mock

import pytest

from crucible.accounts.models import AuditEvent
from experiments.jobs import RUN_TRAINING
from experiments.models import Checkpoint, Run, RunEvent, RunState
from experiments.services import control, experiments, live, runs
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from tests.experiments.test_live import Listener, layer  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def experiment(owner, team):
    advertise()
    version = digit_version(owner, team, counts={2: 20, 3: 20, 4: 20})
    config = config_for(version, digit_verifier(owner, team))
    return experiments.create_experiment(owner, team, name="Sort", config=config)


@pytest.fixture
def sent():
    with mock.patch("crucible.jobs.send") as send:
        yield send


@pytest.fixture
def run(owner, experiment, sent):
    return runs.launch(owner, experiment)


@pytest.fixture
def running(run):
    return runs.claim(run.pk, "celery@w")


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def post(api, run, action: str, body=None):
    return api.post(f"/api/v1/runs/{run.pk}/{action}/", body or {}, format="json")


def events(api, run) -> list[dict]:
    return api.get(f"/api/v1/runs/{run.pk}/events/").json()


def test_it_pauses_a_queued_run_at_once_and_resumes_it_into_the_queue(
    api, run, sent, django_capture_on_commit_callbacks
):
    body = post(api, run, "pause").json()
    assert (body["state"], body["pause_reason"]) == ("paused", "Paused by owner.")
    assert runs.claim(run.pk, "celery@late") is None  # a queued message finds nothing to do
    with django_capture_on_commit_callbacks(execute=True):
        body = post(api, run, "resume").json()
    assert (body["state"], body["pause_reason"]) == ("queued", "")
    sent.assert_called_with(RUN_TRAINING, run.pk)  # back in the queue, for any worker
    assert [(e["kind"], e["applied_at_step"]) for e in events(api, run)] == [
        ("pause", 0),
        ("resume", 0),
    ]


def test_it_asks_a_running_run_to_pause_at_its_next_step_with_a_checkpoint(api, running):
    body = post(api, running, "pause").json()
    assert (body["state"], body["pause_requested"]) == ("running", True)
    assert runs.should_stop(running) and runs.pausing(running)
    runs.heartbeat(running, step=2)
    assert runs.pause_held(running, log_tail="step 2/3")
    paused = Run.objects.get(pk=running.pk)
    assert (paused.state, paused.worker, paused.pause_requested) == ("paused", "", False)
    assert [(e["kind"], e["applied_at_step"]) for e in events(api, running)] == [("pause", 2)]
    assert AuditEvent.objects.filter(action="run.pause_requested").count() == 1


def test_it_takes_back_a_pause_the_worker_has_not_reached(api, running):
    post(api, running, "pause")
    body = post(api, running, "resume").json()
    assert (body["state"], body["pause_requested"]) == ("running", False)
    assert not runs.should_stop(Run.objects.get(pk=running.pk))
    assert [e["kind"] for e in events(api, running)] == ["resume"]  # the pause was withdrawn


def test_it_cancels_a_paused_run_at_once(api, run):
    post(api, run, "pause")
    assert post(api, run, "cancel").json()["state"] == "cancelled"


def test_it_refuses_to_steer_a_finished_run_and_saves_nothing(api, run):
    Run.objects.filter(pk=run.pk).update(state=RunState.SUCCEEDED)
    why = "the run has finished (succeeded): there is nothing to"
    assert fields(post(api, run, "pause")) == {"state": f"{why} pause"}
    assert fields(post(api, run, "resume")) == {"state": f"{why} resume"}
    change = {"families": {"digits": {"weight": 2}}}
    response = post(api, run, "curriculum", change)
    assert response.status_code == 400 and fields(response) == {"state": f"{why} change"}
    assert not RunEvent.objects.exists() and Run.objects.get(pk=run.pk).state == "succeeded"


def test_it_refuses_to_resume_a_run_that_is_not_paused(api, running):
    response = post(api, running, "resume")
    assert response.status_code == 400
    assert fields(response) == {"state": "the run is not paused (running)"}


def test_it_resumes_a_failed_run_from_its_checkpoint_and_refuses_one_without(
    api, running, sent, django_capture_on_commit_callbacks
):
    runs.fail(running, "OperationalError: the connection was dropped", log_tail="")
    response = post(api, running, "resume")
    assert response.status_code == 400
    assert fields(response) == {
        "state": "the run failed before its first checkpoint: launch it again instead"
    }

    Checkpoint.objects.create(run=running, step=2, path="step-000002")
    with django_capture_on_commit_callbacks(execute=True):
        body = post(api, running, "resume").json()
    assert (body["state"], body["failure_reason"], body["finished_at"]) == ("queued", "", None)
    sent.assert_called_once_with(RUN_TRAINING, running.pk)
    assert runs.claim(running.pk, "celery@w").attempts == 2  # the next attempt resumes it


def test_it_hides_control_from_outsiders_and_lets_only_editors_steer(
    client_for, outsider, teammate, run
):
    stranger, viewer = client_for(outsider), client_for(teammate)
    for action in ("pause", "resume", "curriculum"):
        assert post(stranger, run, action).status_code == 404
    assert stranger.get(f"/api/v1/runs/{run.pk}/events/").status_code == 404
    assert stranger.get(f"/api/v1/runs/{run.pk}/curriculum/").status_code == 404
    assert post(viewer, run, "pause").status_code == 403
    assert viewer.get(f"/api/v1/runs/{run.pk}/events/").status_code == 200
    assert Run.objects.get(pk=run.pk).state == RunState.QUEUED


def test_it_keeps_a_curriculum_change_for_the_worker_and_audits_it(api, running):
    change = {"band": [0.4, 0.8], "families": {"digits": {"distribution": [0, 0, 1]}}}
    response = post(api, running, "curriculum", change)
    assert response.status_code == 201, response.json()
    event = response.json()
    assert (event["kind"], event["applied_at_step"], event["created_by"]) == (
        "curriculum",
        None,
        "owner",
    )
    assert event["summary"] == "band 0.4–0.8; digits levels 0/0/100%"
    assert control.pending_changes(running, 3) == [change]
    assert control.pending_changes(running, 4) == []  # handed out once
    assert events(api, running)[0]["applied_at_step"] == 3
    audit = AuditEvent.objects.get(action="run.curriculum_changed")
    assert audit.changes == {"change": change} and audit.actor.username == "owner"


def test_it_shows_the_curriculum_as_changed_so_far(api, running):
    Run.objects.filter(pk=running.pk).update(summary={"curriculum/digits/d2": 0.9})
    before = api.get(f"/api/v1/runs/{running.pk}/curriculum/").json()
    assert before["band"] == [0.3, 0.7]
    assert before["families"] == [
        {"name": "digits", "levels": [2, 3, 4], "weight": 1.0, "distribution": [0.9, None, None]}
    ]
    post(api, running, "curriculum", {"band": [0.5, 0.9], "families": {"digits": {"weight": 3}}})
    after = api.get(f"/api/v1/runs/{running.pk}/curriculum/").json()
    assert after["band"] == [0.5, 0.9] and after["families"][0]["weight"] == 3.0


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        (
            {"families": {"digits": {"distribution": [1, 2]}}},
            {
                "families.digits.distribution": "must give a non-negative share for each of "
                "the levels [2, 3, 4], not all zero"
            },
        ),
        (
            {"families": {"digits": {"weight": 0}}},
            {"families": "at least one family needs a positive weight"},
        ),
        ({"band": [0.9, 0.1]}, {"band": "must be [low, high] with 0 <= low < high <= 1"}),
        ({"floor": 0.2}, {"floor": "unknown field", None: "change at least one of band, families"}),
    ],
)
def test_it_names_the_field_of_a_change_it_refuses(api, running, change, errors):
    response = post(api, running, "curriculum", change)
    assert response.status_code == 400 and fields(response) == errors
    assert not RunEvent.objects.exists()


def test_it_hands_out_again_changes_the_checkpoint_of_a_resume_does_not_hold(owner, running):
    first = control.change_curriculum(owner, running, {"families": {"digits": {"weight": 2}}})
    control.pending_changes(running, 2)
    second = control.change_curriculum(owner, running, {"band": [0.1, 0.9]})
    control.pending_changes(running, 6)
    runs.mark_resumed(running, 4)  # the checkpoint of step 4 holds the first, not the second
    assert RunEvent.objects.get(pk=first.pk).applied_at_step == 2
    assert RunEvent.objects.get(pk=second.pk).applied_at_step is None
    assert control.pending_changes(running, 4) == [{"band": [0.1, 0.9]}]


def test_it_tells_a_following_run_page_that_the_events_changed(owner, running):
    hub = live.RunHub(running.pk)
    assert hub.look() == []  # the first look only takes the run as it is
    control.change_curriculum(owner, running, {"band": [0.2, 0.6]})
    assert [e["type"] for e in hub.look()] == ["events"]
    control.pending_changes(running, 1)
    assert [e["type"] for e in hub.look()] == ["events"]
    assert hub.look() == []


def test_it_publishes_an_events_frame_to_the_runs_viewers(
    owner,
    running,
    layer,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    listener = Listener(layer, live.run_group(running.pk))
    with django_capture_on_commit_callbacks(execute=True):
        control.change_curriculum(owner, running, {"band": [0.2, 0.6]})
    message = listener.next()
    assert message["event"] == {"type": "events", "version": [1, message["event"]["version"][1], 0]}
    with django_capture_on_commit_callbacks(execute=True):
        control.pending_changes(running, 5)
    assert listener.next()["event"]["version"][2] == 1  # now applied
