import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import Curriculum
from tasks_app.services import pools

pytestmark = pytest.mark.django_db


@pytest.fixture
def version(owner, team):
    family = pools.create_family(owner, team, name="Digits", slug="digits", kind="string-ops")
    tasks = pools.generated_tasks(family, {level: 60 for level in (1, 2, 3, 4, 5)}, seed=1)
    return pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]


def config(version, **policy):
    return {"families": [{"version": version.id, "weight": 1.0}], "band": [0.3, 0.7], **policy}


def test_it_creates_a_curriculum_over_a_pinned_version(api, version):
    response = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "Ramp", "config": config(version)},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["revision"] == 1


def test_it_names_the_bad_field_of_a_config(api, version):
    bad = {"families": [{"version": version.id, "levels": [1, 9]}]}
    response = api.post(
        "/api/v1/curricula/", {"team": "reasoning", "name": "x", "config": bad}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "config.families[0].levels"
    response = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "x", "config": config(version, band=[0.8, 0.2])},
        format="json",
    )
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "config.band"
    assert Curriculum.objects.count() == 0


def test_it_refuses_another_teams_version(client_for, outsider, version):
    response = client_for(outsider).post(
        "/api/v1/curricula/",
        {"team": "elsewhere", "name": "x", "config": config(version)},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "config.families[0].version"


def test_it_bumps_the_revision_and_audits_a_config_change(api, version):
    created = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "Ramp", "config": config(version)},
        format="json",
    ).json()
    changed = api.patch(
        f"/api/v1/curricula/{created['id']}/", {"config": config(version, floor=0.1)}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["revision"] == 2
    assert AuditEvent.objects.filter(action="curriculum.config_changed").count() == 1


def test_it_previews_the_policy_against_a_synthetic_learner_keeping_success_in_band(api, version):
    body = {
        "config": config(version, window=32),
        "steps": 400,
        "batch": 32,
        "seed": 7,
        "learner": {"ability": 1.0, "learning_rate": 0.0003},
    }
    trace = api.post("/api/v1/curricula/preview/", body, format="json").json()
    assert len(trace["steps"]) == 400 and trace["levels"]["digits"] == [1, 2, 3, 4, 5]
    assert trace["in_band"]["digits"] > 0.8
    first, last = (
        trace["steps"][0]["distribution"]["digits"],
        trace["steps"][-1]["distribution"]["digits"],
    )
    mean_level = lambda probs: sum(p * level for p, level in zip(probs, range(1, 6), strict=True))  # noqa: E731
    assert mean_level(last) > mean_level(first) + 1.0
    assert min(last) >= 0.05 - 1e-9
