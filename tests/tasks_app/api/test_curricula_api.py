import jsonschema
import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import Curriculum
from tasks_app.services import pools
from tests.crucible.test_api_schema import documented

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


def test_it_names_the_field_of_a_problem_across_fields(api, version):
    entry = {"version": version.id, "levels": [1, 2, 3], "initial": [0.5, 0.5]}
    response = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "x", "config": {"families": [entry], "floor": 0.4}},
        format="json",
    )
    assert response.status_code == 400
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert set(errors) == {"config.families[0].initial", "config.floor"}
    assert "3 levels of 'digits' exceeds 1" in errors["config.floor"]


def test_it_names_a_value_of_the_wrong_type_inside_a_family(api, version):
    entry = {"version": version.id, "weight": "heavy"}
    response = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "x", "config": {"families": [entry]}},
        format="json",
    )
    assert response.status_code == 400
    assert [e["field"] for e in response.json()["errors"]] == ["config.families[0].weight"]


def test_it_keeps_and_shows_a_config_with_its_defaults(api, version):
    body = {"team": "reasoning", "name": "Ramp", "config": {"families": [{"version": version.id}]}}
    created = api.post("/api/v1/curricula/", body, format="json").json()
    expected = {
        "families": [{"version": version.id, "weight": 1.0, "levels": None, "initial": None}],
        "band": [0.3, 0.7],
        "floor": 0.05,
        "window": 64,
        "step": 0.2,
        "dynamic": True,
    }
    assert created["config"] == expected
    assert Curriculum.objects.get(pk=created["id"]).config == expected


def test_it_keeps_the_revision_of_a_config_saved_without_defaults_when_saved_unchanged(
    api, owner, team, version
):
    saved = Curriculum.objects.create(
        team=team, name="Old", slug="old", created_by=owner, config=config(version)
    )
    again = api.patch(f"/api/v1/curricula/{saved.pk}/", {"config": config(version)}, format="json")
    assert again.status_code == 200 and again.json()["revision"] == 1
    assert again.json()["config"]["window"] == 64


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


def test_it_answers_a_preview_as_its_schema_documents(api, version, openapi):
    body = {"config": config(version, window=8), "steps": 20, "batch": 4}
    trace = api.post("/api/v1/curricula/preview/", body, format="json").json()
    jsonschema.validate(trace, documented(openapi, "/api/v1/curricula/preview/", "post"))
    assert trace["steps"][0]["rolling_success"]["digits"] is not None
    assert trace["in_band"]["digits"] is not None


def test_it_documents_the_config_field_by_field(openapi):
    schemas = openapi["components"]["schemas"]
    config = schemas["Curriculum"]["properties"]["config"]
    assert config == {"$ref": "#/components/schemas/CurriculumConfig"}
    assert set(schemas["CurriculumConfig"]["properties"]) == {
        "families",
        "band",
        "floor",
        "window",
        "step",
        "dynamic",
    }
    entry = schemas["FamilyEntryRequest"]
    assert set(entry["properties"]) == {"version", "weight", "levels", "initial"}
    assert entry["required"] == ["version"]


def test_it_refuses_a_preview_of_more_attempts_than_the_cap_naming_steps_and_batch(api, version):
    body = {"config": config(version), "steps": 200, "batch": 1024}
    response = api.post("/api/v1/curricula/preview/", body, format="json")
    assert response.status_code == 400
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert set(errors) == {"steps", "batch"}
    assert "200 x 1024 = 204800" in errors["batch"] and "at most 131072" in errors["batch"]


def test_a_preview_refuses_a_learner_or_size_of_another_json_type_by_name(api, version):
    body = {"config": config(version), "steps": 5, "batch": 2}
    assert api.post("/api/v1/curricula/preview/", body, format="json").status_code == 200
    for field, value in (("learner", {"learning_rate": False}), ("learner", {"slope": "2"}),
                         ("steps", True), ("batch", "2")):  # fmt: skip
        response = api.post("/api/v1/curricula/preview/", {**body, field: value}, format="json")
        assert response.status_code == 400, (field, value, response.content)
        named = [e["field"] for e in response.json()["errors"]]
        assert len(named) == 1 and named[0].startswith(field), named


def test_it_refuses_a_preview_tracing_too_many_family_steps(api, owner, team):
    entries = []
    for n in range(9):
        family = pools.create_family(owner, team, name=f"F{n}", slug=f"f{n}", kind="string-ops")
        tasks = pools.generated_tasks(family, {1: 5}, seed=n)
        made = pools.version_from_tasks(
            owner, family, tasks, source="generator", detail={}, near=False
        )
        entries.append({"version": made[0].id})
    body = {"config": {"families": entries}, "steps": 2000, "batch": 1}
    response = api.post("/api/v1/curricula/preview/", body, format="json")
    assert response.status_code == 400
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert set(errors) == {"steps", "config.families"}
    assert "2000 x 9 = 18000" in errors["steps"] and "at most 16384" in errors["steps"]


def test_it_refuses_a_curriculum_of_too_many_families_before_looking_them_up(api, team):
    families = [{"version": n} for n in range(1, 258)]
    response = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "Wide", "config": {"families": families}},
        format="json",
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error == {
        "field": "config.families",
        "code": "invalid",
        "message": "must have at most 256 items",
    }


def test_it_audits_a_deleted_curriculum_under_its_name(api, client_for, teammate, version):
    created = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "Ramp", "config": config(version)},
        format="json",
    ).json()
    assert client_for(teammate).delete(f"/api/v1/curricula/{created['id']}/").status_code == 403
    assert api.delete(f"/api/v1/curricula/{created['id']}/").status_code == 204
    event = AuditEvent.objects.get(action="curriculum.deleted")
    assert event.target_id == str(created["id"]) and event.target_label == "Ramp"
    assert not Curriculum.objects.exists()
