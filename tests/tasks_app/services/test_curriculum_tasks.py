import pytest

from tasks_app.models import PoolTask
from tasks_app.services import curricula, curriculum_tasks, pools

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


def test_it_streams_the_train_tasks_it_pins_and_keeps_the_held_out_ones_apart(curriculum):
    config, train = curriculum_tasks.training_set(curriculum.pk)
    assert [family.name for family in config.families] == ["digits"]
    entries = list(train)
    held_out = curriculum_tasks.held_out_set(curriculum)
    rows = PoolTask.objects.order_by("position")
    assert [task.prompt for *_, task in entries] == [
        row.prompt for row in rows if row.split == "train"
    ]
    assert {(name, level, split) for name, level, split, _ in entries} == {("digits", 1, "train")}
    assert held_out and [(name, task.prompt) for name, task in held_out] == [
        ("digits", row.prompt) for row in rows if row.split == "held_out"
    ]
