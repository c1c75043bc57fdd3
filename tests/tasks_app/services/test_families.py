import pytest
from rest_framework.exceptions import ValidationError

from crucible.accounts.models import AuditEvent
from tasks_app.models import Curriculum, PoolTask, PoolVersion, TaskFamily
from tasks_app.services import curricula, families, pools

pytestmark = pytest.mark.django_db


@pytest.fixture
def family(owner, team):
    return families.create_family(owner, team, name="Sums", kind="arithmetic")


def freeze(owner, family, seed: int) -> PoolVersion:
    tasks = pools.generated_tasks(family, {1: 20, 2: 20}, seed=seed)
    made = pools.version_from_tasks(owner, family, tasks, source="generator", detail={}, near=False)
    return made[0]


def pin(owner, team, version, name: str = "Warm-up") -> Curriculum:
    config = {"families": [{"version": version.pk}]}
    return curricula.create_curriculum(owner, team, name=name, slug=name.lower(), config=config)


def actions(family) -> list[str]:
    return list(
        AuditEvent.objects.filter(target_type="tasks_app.taskfamily", target_id=str(family.pk))
        .order_by("id")
        .values_list("action", flat=True)
    )


def test_it_deletes_a_family_nothing_pins_with_all_its_versions(owner, family):
    tasks = freeze(owner, family, seed=1).task_count + freeze(owner, family, seed=2).task_count
    plan = families.removal(family)
    assert (plan.action, plan.versions, plan.tasks) == ("delete", 2, tasks)
    assert f"deleted and its 2 version(s) ({tasks} tasks)" in plan.message
    families.remove_family(owner, family)
    assert not TaskFamily.objects.exists() and not PoolVersion.objects.exists()
    assert not PoolTask.objects.exists()
    assert actions(family) == ["family.created", "family.deleted"]


def test_it_archives_a_family_a_curriculum_pins_and_says_which(owner, team, family):
    v1 = freeze(owner, family, seed=1)
    freeze(owner, family, seed=2)
    pin(owner, team, v1)
    plan = families.removal(family)
    assert plan.action == "archive"
    assert [p.reason for p in plan.pins] == ["pinned by curriculum 'Warm-up' (v1)"]
    assert "archived, not deleted: it is pinned by curriculum 'Warm-up' (v1)" in plan.message
    families.remove_family(owner, family)
    family.refresh_from_db()
    assert family.archived and PoolVersion.objects.filter(family=family).count() == 2
    assert actions(family) == ["family.created", "family.archived"]
    event = AuditEvent.objects.get(action="family.archived")
    assert event.changes == {"pinned_by": ["pinned by curriculum 'Warm-up' (v1)"]}


def test_it_asks_what_other_apps_register_about_what_pins_a_family(owner, family):
    version = freeze(owner, family, seed=1)

    def experiments(found, numbers):
        return [families.Pin("experiment", 7, "Baseline", [numbers[version.pk]])]

    families.register_pin_finder(experiments)
    try:
        reasons = [p.reason for p in families.pins(family)]
        assert reasons == ["pinned by experiment 'Baseline' (v1)"]
    finally:
        families._pin_finders.remove(experiments)
    assert families.pins(family) == []


def test_it_keeps_an_archived_family_read_only_until_restored(owner, team, family):
    pin(owner, team, freeze(owner, family, seed=1))
    families.remove_family(owner, family)
    with pytest.raises(families.FamilyArchived):
        families.update_family(owner, family, description="changed")
    with pytest.raises(families.FamilyArchived):
        freeze(owner, family, seed=3)
    families.restore_family(owner, family)
    family = families.update_family(owner, family, description="changed")
    assert family.description == "changed" and freeze(owner, family, seed=3).number == 2
    assert actions(family)[-3:] == ["family.archived", "family.restored", "family.updated"]


def test_it_audits_what_an_update_changed(owner, family):
    changes = {"name": "Sums 2", "held_out_fraction": 0.1, "params": {"ops": ["+"]}}
    families.update_family(owner, family, **changes)
    event = AuditEvent.objects.get(action="family.updated")
    assert event.changes == {
        "name": ["Sums", "Sums 2"],
        "params": [
            {"ops": ["+", "-", "*"], "allow_negative": True},
            {"ops": ["+"], "allow_negative": True},
        ],
    }


def test_it_refuses_a_name_or_derived_slug_the_team_already_has(owner, team, family):
    with pytest.raises(ValidationError) as exc:
        families.create_family(owner, team, name="  sums ", kind="string-ops")
    assert "the family 'Sums' already has this name" in str(exc.value.detail["name"][0])
    with pytest.raises(ValidationError) as exc:
        families.create_family(owner, team, name="Sums!", kind="string-ops")
    assert "'sums', made from the name, is the slug of 'Sums'" in str(exc.value.detail["slug"][0])
    other = families.create_family(owner, team, name="Sums!", slug="sums-bang", kind="string-ops")
    assert other.slug == "sums-bang" and TaskFamily.objects.count() == 2
    with pytest.raises(ValidationError):
        families.update_family(owner, other, name="SUMS")
