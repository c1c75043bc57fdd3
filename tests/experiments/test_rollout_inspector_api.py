"""The rollout inspector: /runs/<id>/rollouts/ and /rollout-groups/ filtered and searched, and
/runs/<id>/rollouts/<id>/flag/ proposing a verdict's correction, per persona."""

from __future__ import annotations

import pytest

from crucible.accounts.models import AuditEvent
from experiments.models import Rollout
from tasks_app.models import ExampleProposal, LabelledExample, VerifierVersion
from tasks_app.services import verifiers
from tests.experiments.rollouts_setup import judged_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(owner, team):
    return judged_run(owner, team, steps=2, groups=3)


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def flat(api, run, **params) -> list[tuple[int, int, int]]:
    body = api.get(f"/api/v1/runs/{run.pk}/rollouts/", {**params, "page_size": 100}).json()
    return [(r["step"], r["group"], r["sample"]) for r in body["results"]]


def test_it_filters_completions_by_verdict_error_type_reward_and_level(api, run):
    assert len(flat(api, run)) == 2 * 3 * 4
    passed = flat(api, run, passed="true")
    assert passed == [(s, g, 0) for s in (1, 2) for g in range(3)]  # the exact answers
    assert flat(api, run, error_type="wrong_answer", step=1) == [
        (1, g, k) for g in range(3) for k in (1, 2)
    ]
    assert flat(api, run, error_type="format_error", step=2) == [(2, g, 3) for g in range(3)]
    assert flat(api, run, reward_min="1") == passed
    assert len(flat(api, run, reward_max="0.99")) == 2 * 3 * 3
    levels = set(Rollout.objects.filter(run=run).values_list("difficulty", flat=True))
    for level in levels:
        rows = Rollout.objects.filter(run=run, difficulty=level)
        assert len(flat(api, run, difficulty=str(level))) == rows.count()


def test_it_searches_prompts_and_completions_in_any_case(api, run):
    first = Rollout.objects.filter(run=run).order_by("step", "group", "sample").first()
    digits = first.prompt.removeprefix("sort ").removesuffix("=")
    assert (1, 0, 0) in flat(api, run, search=f"SORT {digits}")
    spaced = Rollout.objects.get(run=run, step=1, group=0, sample=1).completion
    assert flat(api, run, search=spaced) == [(1, 0, 1)]
    assert flat(api, run, search="no such text") == []


def test_it_names_each_bad_filter(api, run):
    url = f"/api/v1/runs/{run.pk}/rollouts/"
    response = api.get(url, {"reward_min": "high", "passed": "yes", "step": "-1"})
    assert response.status_code == 400
    assert fields(response) == {
        "reward_min": "must be a number",
        "passed": "must be true or false",
        "step": "must be a whole number",
    }
    assert fields(api.get(url, {"reward_min": "1", "reward_max": "0"})) == {
        "reward_max": "must be at least reward_min"
    }
    assert "search" in fields(api.get(url, {"search": "x" * 201}))
    assert (
        api.get(f"/api/v1/runs/{run.pk}/rollout-groups/", {"reward_max": "nan"}).status_code == 400
    )


def test_it_shows_whole_groups_with_the_matching_completions_marked(api, run):
    body = api.get(
        f"/api/v1/runs/{run.pk}/rollout-groups/", {"step": 2, "passed": "true", "page_size": 2}
    ).json()
    assert body["count"] == 3 and [(g["step"], g["group"]) for g in body["results"]] == [
        (2, 0),
        (2, 1),
    ]
    group = body["results"][0]
    assert [r["sample"] for r in group["rollouts"]] == [0, 1, 2, 3]
    assert [r["matches"] for r in group["rollouts"]] == [True, False, False, False]
    rollout = group["rollouts"][1]
    assert rollout["passed"] is False and rollout["error_type"] == "wrong_answer"
    assert "wrong_answer" in [layer["error_type"] for layer in rollout["layers"]]
    assert rollout["flag"] is None
    assert rollout["advantage"] < 0 < group["rollouts"][0]["advantage"]


def flag_url(run, rollout) -> str:
    return f"/api/v1/runs/{run.pk}/rollouts/{rollout.pk}/flag/"


def test_it_proposes_a_refused_answer_as_a_known_good_example(api, run):
    spaced = Rollout.objects.get(run=run, step=1, group=0, sample=1)
    response = api.post(flag_url(run, spaced), {"note": "a space is fine"}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["label"] == "good" and response.json()["status"] == "proposed"
    proposal = ExampleProposal.objects.get()
    assert (proposal.response, proposal.judged_passed, proposal.note) == (
        spaced.completion,
        False,
        "a space is fine",
    )
    assert proposal.expected == {"answer": spaced.completion.replace(" ", "")}
    assert proposal.version_id == spaced.verifier_version and proposal.source_label.startswith(
        "Sort run #1, step 1, group 0, sample 1"
    )
    assert AuditEvent.objects.filter(action="verifier.example_proposed").count() == 1
    groups = api.get(f"/api/v1/runs/{run.pk}/rollout-groups/", {"step": 1}).json()["results"]
    assert groups[0]["rollouts"][1]["flag"]["status"] == "proposed"


def test_it_proposes_a_passed_answer_as_a_known_bad_example(api, run):
    exact = Rollout.objects.get(run=run, step=2, group=1, sample=0)
    assert api.post(flag_url(run, exact), {}, format="json").json()["label"] == "bad"


def test_it_refuses_a_second_flag_on_the_same_verdict(api, client_for, teammate, run):
    spaced = Rollout.objects.get(run=run, step=1, group=0, sample=1)
    assert client_for(teammate).post(flag_url(run, spaced), {}, format="json").status_code == 201
    again = api.post(flag_url(run, spaced), {"note": "me too"}, format="json")
    assert again.status_code == 400
    assert fields(again) == {
        "rollout": "this verdict is already flagged for the verifier's team to review"
    }
    assert ExampleProposal.objects.count() == 1


def test_it_hides_rollouts_of_other_teams(api, client_for, outsider, run):
    spaced = Rollout.objects.get(run=run, step=1, group=0, sample=1)
    stranger = client_for(outsider)
    assert stranger.post(flag_url(run, spaced), {}, format="json").status_code == 404
    assert stranger.get(f"/api/v1/runs/{run.pk}/rollout-groups/").status_code == 404
    # Their own run does not reach our rollout either.
    theirs = judged_run(outsider, outsider.memberships.get().team, steps=1)
    assert stranger.post(flag_url(theirs, spaced), {}, format="json").status_code == 404
    assert ExampleProposal.objects.count() == 0


def test_it_refuses_a_flag_on_a_completion_with_no_verifier_to_correct(api, run):
    spaced = Rollout.objects.get(run=run, step=1, group=0, sample=1)
    Rollout.objects.filter(pk=spaced.pk).update(verifier_version=None)
    response = api.post(flag_url(run, spaced), {}, format="json")
    assert response.status_code == 400 and "rollout" in fields(response)
    assert api.post(flag_url(run, spaced), {"bogus": 1}, format="json").status_code == 400
    assert ExampleProposal.objects.count() == 0


# --- flagging one turn of an episode --------------------------------------------------------

TOOL_CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "python", "arguments": '{"code": "print(sorted(\'312\'))"}'},
}
EPISODE = [
    {"role": "user", "content": "sort 312"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [TOOL_CALL],
        "verdict": {"error": "tool_call_parse", "info": {}},
    },
    {"role": "tool", "content": "['1', '2', '3']", "tool_call_id": "c1", "name": "python"},
    {"role": "assistant", "content": "123", "verdict": {"error": None, "info": {}}},
]


@pytest.fixture
def episode(run):
    """A stored completion that is an episode: a tool call judged malformed, then the answer."""
    rollout = Rollout.objects.get(run=run, step=1, group=0, sample=0)
    Rollout.objects.filter(pk=rollout.pk).update(messages=EPISODE)
    return Rollout.objects.get(pk=rollout.pk)


def test_it_proposes_a_turn_judged_malformed_as_a_known_good_turn(api, run, episode):
    body = {"turn": 1, "note": "the call parses"}
    response = api.post(flag_url(run, episode), body, format="json")
    assert response.status_code == 201, response.json()
    assert (response.json()["label"], response.json()["turn"]) == ("good", 1)
    proposal = ExampleProposal.objects.get()
    assert proposal.messages == EPISODE[:2] and proposal.turn == 1
    assert proposal.response == 'python({"code": "print(sorted(\'312\'))"})'
    assert (proposal.judged_passed, proposal.judged_error_type, proposal.note) == (
        False,
        "tool_call_parse",
        "the call parses",
    )
    assert proposal.source == f"rollout:{episode.pk}/turn:1"
    assert proposal.source_label.endswith("step 1, group 0, sample 0, turn 1")
    event = AuditEvent.objects.get(action="verifier.example_proposed")
    assert event.changes["turn"] == 1
    # The inspector shows the flag on that turn; the rollout's own verdict is not flagged.
    groups = api.get(f"/api/v1/runs/{run.pk}/rollout-groups/", {"step": 1}).json()["results"]
    shown = groups[0]["rollouts"][0]
    assert shown["flag"] is None
    assert [(f["turn"], f["status"], f["label"]) for f in shown["turn_flags"]] == [
        (1, "proposed", "good")
    ]
    assert groups[0]["rollouts"][1]["turn_flags"] == []


def test_each_turn_and_the_whole_verdict_are_flagged_once(api, client_for, teammate, run, episode):
    url = flag_url(run, episode)
    assert client_for(teammate).post(url, {"turn": 3}, format="json").json()["label"] == "bad"
    again = api.post(url, {"turn": 3, "note": "me too"}, format="json")
    assert again.status_code == 400
    assert fields(again) == {
        "turn": "this verdict is already flagged for the verifier's team to review"
    }
    assert api.post(url, {"turn": 1}, format="json").status_code == 201
    whole = api.post(url, {}, format="json")
    assert whole.status_code == 201 and whole.json()["turn"] is None
    assert sorted(ExampleProposal.objects.values_list("turn", flat=True), key=str) == [1, 3, None]
    groups = api.get(f"/api/v1/runs/{run.pk}/rollout-groups/", {"step": 1}).json()["results"]
    shown = groups[0]["rollouts"][0]
    assert [f["turn"] for f in shown["turn_flags"]] == [1, 3]
    assert shown["flag"]["turn"] is None


def test_it_names_the_turn_and_why_it_cannot_be_flagged(api, run, episode):
    url = flag_url(run, episode)
    cases = [
        (9, "out of range: the episode has 4 messages (0 to 3)"),
        (2, "message 2 is a tool message, not an assistant turn"),
        (0, "message 0 is a user message, not an assistant turn"),
    ]
    for turn, why in cases:
        response = api.post(url, {"turn": turn}, format="json")
        assert response.status_code == 400 and fields(response) == {"turn": why}
    for bad in (-1, "1", True, 1.5):
        response = api.post(url, {"turn": bad}, format="json")
        assert response.status_code == 400 and "turn" in fields(response), bad
    single = Rollout.objects.get(run=run, step=1, group=0, sample=1)
    response = api.post(flag_url(run, single), {"turn": 1}, format="json")
    assert fields(response) == {"turn": "this rollout is not an episode: flag its whole verdict"}
    assert ExampleProposal.objects.count() == 0


def test_an_accepted_turn_flag_becomes_a_labelled_turn_outside_the_verifiers_rates(
    api, client_for, editor, run, episode
):
    version = VerifierVersion.objects.get(pk=episode.verifier_version)
    before = verifiers.evaluate(version)["examples"]
    flagged = api.post(flag_url(run, episode), {"turn": 1}, format="json").json()
    accepted = client_for(editor).post(f"/api/v1/example-proposals/{flagged['id']}/accept/", {})
    assert accepted.status_code == 200, accepted.json()
    assert (accepted.json()["turn"], accepted.json()["messages"]) == (1, EPISODE[:2])
    example = LabelledExample.objects.get(pk=accepted.json()["example"])
    assert (example.label, example.turn, example.messages) == ("good", 1, EPISODE[:2])
    listed = api.get(f"/api/v1/verifiers/{version.verifier_id}/examples/").json()
    assert [(e["turn"], e["messages"]) for e in listed] == [(1, EPISODE[:2])]
    # The turn's verdict was the environment's: the verifier's rates do not count it.
    assert verifiers.evaluate(version)["examples"] == before
    groups = api.get(f"/api/v1/runs/{run.pk}/rollout-groups/", {"step": 1}).json()["results"]
    assert groups[0]["rollouts"][0]["turn_flags"][0]["status"] == "accepted"
