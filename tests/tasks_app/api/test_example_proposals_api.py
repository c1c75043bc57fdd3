"""/api/v1/example-proposals/: a disputed verdict's response, accepted into the verifier's
labelled examples (so its reported rates change) or rejected, once, by an editor."""

from __future__ import annotations

import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import ExampleProposal, LabelledExample
from tasks_app.services import example_proposals, verifiers

pytestmark = pytest.mark.django_db
URL = "/api/v1/example-proposals/"


@pytest.fixture
def version(owner, team):
    verifier = verifiers.create_verifier(
        owner, team, name="Exact sort", slug="exact-sort", family_kind="digit-sort"
    )
    verifiers.add_example(owner, verifier, response="12", expected={"answer": "12"}, label="good")
    verifiers.add_example(owner, verifier, response="21", expected={"answer": "12"}, label="bad")
    return verifier.latest_version()


def propose(user, team, version, response="1 2", passed=False, key="rollout:1"):
    flag = example_proposals.propose(
        user,
        team,
        example_proposals.Verdict(version.pk, passed, "" if passed else "wrong_answer", 0.0),
        response=response,
        expected={"answer": "12"},
        source=example_proposals.Source(key, "Sort run #1, step 3", "/runs/1/rollouts?step=3"),
        note="a space should not matter",
    )
    return ExampleProposal.objects.get(pk=flag.id)


def rates(api, version) -> tuple[float | None, float | None]:
    report = api.post(f"/api/v1/verifiers/{version.verifier_id}/versions/1/evaluate/").json()
    return report["false_positive_rate"], report["false_negative_rate"]


def test_it_lists_proposals_by_verifier_and_status(api, owner, team, version):
    proposal = propose(owner, team, version)
    body = api.get(URL, {"verifier": version.verifier_id, "status": "proposed"}).json()
    (listed,) = body["results"]
    assert listed["id"] == proposal.pk and listed["label"] == "good"
    assert (listed["judged_passed"], listed["judged_error_type"]) == (False, "wrong_answer")
    assert listed["source_path"] == "/runs/1/rollouts?step=3" and listed["version_number"] == 1
    assert api.get(URL, {"status": "accepted"}).json()["count"] == 0


def test_it_accepts_a_proposal_as_a_labelled_example_and_the_rates_change(
    api, owner, team, version
):
    assert rates(api, version) == (0.0, 0.0)
    proposal = propose(owner, team, version)
    response = api.post(f"{URL}{proposal.pk}/accept/", {"note": "agreed"}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["status"], body["decided_by"], body["decision_note"]) == (
        "accepted",
        "owner",
        "agreed",
    )
    example = LabelledExample.objects.get(pk=body["example"])
    assert (example.response, example.label, example.expected) == ("1 2", "good", {"answer": "12"})
    # A good answer the version refuses: one false negative out of two good examples.
    assert rates(api, version) == (0.0, 0.5)
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"verifier.example_proposed", "verifier.proposal_accepted"} <= actions


def test_it_decides_a_proposal_once(api, owner, team, version):
    proposal = propose(owner, team, version)
    assert api.post(f"{URL}{proposal.pk}/accept/", {}, format="json").status_code == 200
    again = api.post(f"{URL}{proposal.pk}/accept/", {}, format="json")
    assert again.status_code == 400
    assert again.json()["errors"][0] == {
        "field": "status",
        "code": "decided",
        "message": "this proposal was already accepted",
    }
    assert api.post(f"{URL}{proposal.pk}/reject/", {}, format="json").status_code == 400
    assert LabelledExample.objects.count() == 3


def test_it_rejects_a_proposal_and_adds_nothing(api, owner, team, version):
    proposal = propose(owner, team, version, response="21", passed=True)
    assert proposal.label == "bad"
    response = api.post(f"{URL}{proposal.pk}/reject/", {"note": "it is right"}, format="json")
    assert response.json()["status"] == "rejected" and response.json()["example"] is None
    assert LabelledExample.objects.count() == 2 and rates(api, version) == (0.0, 0.0)


def test_it_leaves_a_proposal_undecided_when_the_verifier_holds_its_most_examples(
    api, owner, team, version, monkeypatch
):
    monkeypatch.setattr(verifiers, "MAX_EXAMPLES", 2)
    proposal = propose(owner, team, version)
    response = api.post(f"{URL}{proposal.pk}/accept/", {}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "examples"
    assert ExampleProposal.objects.get(pk=proposal.pk).status == "proposed"
    assert LabelledExample.objects.count() == 2


def test_it_lets_viewers_read_and_editors_decide(client_for, owner, team, teammate, version):
    proposal = propose(owner, team, version)
    viewer = client_for(teammate)
    assert viewer.get(f"{URL}{proposal.pk}/").status_code == 200
    assert viewer.post(f"{URL}{proposal.pk}/accept/", {}, format="json").status_code == 403
    assert ExampleProposal.objects.get(pk=proposal.pk).status == "proposed"


def test_it_hides_proposals_of_other_teams(client_for, owner, team, outsider, version):
    proposal = propose(owner, team, version)
    stranger = client_for(outsider)
    assert stranger.get(URL).json()["count"] == 0
    assert stranger.post(f"{URL}{proposal.pk}/accept/", {}, format="json").status_code == 404
    assert ExampleProposal.objects.get(pk=proposal.pk).status == "proposed"


def test_it_refuses_a_proposal_for_another_teams_verifier_version(owner, outsider, version):
    from rest_framework.exceptions import ValidationError

    with pytest.raises(ValidationError):
        propose(outsider, outsider.memberships.get().team, version)
    assert ExampleProposal.objects.count() == 0
