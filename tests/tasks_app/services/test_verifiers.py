import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import LabelledExample, Verifier
from tasks_app.services import verifiers

pytestmark = pytest.mark.django_db


@pytest.fixture
def verifier(owner, team):
    return verifiers.create_verifier(owner, team, name="Exact answer", slug="exact")


def test_it_audits_deleting_a_verifier_under_its_name(owner, team, verifier):
    verifier_id = verifier.pk
    verifiers.delete_verifier(owner, verifier)
    assert not Verifier.objects.filter(pk=verifier_id).exists()
    event = AuditEvent.objects.get(action="verifier.deleted")
    assert (event.team, event.actor) == (team, owner)
    assert event.target_id == str(verifier_id) and event.target_label == "Exact answer"
    assert event.changes == {"name": "Exact answer", "slug": "exact"}


def test_it_audits_deleting_a_labelled_example_with_its_verifiers_name(owner, team, verifier):
    example = verifiers.add_example(owner, verifier, response="Answer: 4", label="good")
    example_id = example.pk
    verifiers.delete_example(owner, example)
    assert not LabelledExample.objects.exists()
    event = AuditEvent.objects.get(action="verifier.example_deleted")
    assert event.team == team and event.target_id == str(example_id)
    assert event.target_label == "Exact answer"
    assert event.changes == {"label": "good", "verifier": "Exact answer"}
