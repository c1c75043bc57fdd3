"""A family whose pool version an experiment trained on is archived, not deleted."""

import pytest

from experiments.models import Experiment
from tasks_app.services import families, pools

pytestmark = pytest.mark.django_db


def test_it_archives_a_family_an_experiment_pins(owner, team):
    family = families.create_family(owner, team, name="Sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 20}, seed=1)
    version, _ = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )
    Experiment.objects.create(
        team=team,
        name="Baseline",
        config={"curriculum": {"families": [{"pool_version": version.pk}]}},
        config_hash="x",
    )
    plan = families.removal(family)
    assert plan.action == "archive"
    assert [p.reason for p in plan.pins] == ["pinned by experiment 'Baseline' (v1)"]
