import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import Curriculum
from tasks_app.services import curricula, pools

pytestmark = pytest.mark.django_db


@pytest.fixture
def curriculum(owner, team):
    family = pools.create_family(owner, team, name="Digits", slug="digits", kind="string-ops")
    tasks = pools.generated_tasks(family, {1: 10}, seed=0)
    version, _ = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )
    config = {"families": [{"version": version.id}]}
    return curricula.create_curriculum(owner, team, config=config, name="Ramp", slug="ramp")


def test_it_audits_deleting_a_curriculum_under_its_name(owner, team, curriculum):
    curriculum_id = curriculum.pk
    curricula.delete_curriculum(owner, curriculum)
    assert not Curriculum.objects.exists()
    event = AuditEvent.objects.get(action="curriculum.deleted")
    assert (event.team, event.actor) == (team, owner)
    assert event.target_id == str(curriculum_id) and event.target_label == "Ramp"
    assert event.changes == {"name": "Ramp", "slug": "ramp", "revision": 1}
