import jsonschema
import pytest

from tasks_app.services import curricula, pools, verifiers
from tests.crucible.test_api_schema import json_schema

pytestmark = pytest.mark.django_db

URL = "/api/v1/teams/{}/summary/"


def make_things(user, team):  # type: ignore[no-untyped-def]
    family = pools.create_family(user, team, name="Digits", slug="digits", kind="string-ops")
    for seed in (0, 1):
        tasks = pools.generated_tasks(family, {1: 5}, seed=seed)
        version, _ = pools.version_from_tasks(
            user, family, tasks, source="generator", detail={}, near=False
        )
    pools.create_family(user, team, name="Sums", slug="sums", kind="arithmetic")
    verifiers.create_verifier(user, team, name="Exact", slug="exact")
    config = {"families": [{"version": version.id}]}
    curricula.create_curriculum(user, team, config=config, name="Ramp", slug="ramp")


def test_it_counts_what_a_team_has_made_for_any_member(client_for, owner, team, teammate):
    make_things(owner, team)
    response = client_for(teammate).get(URL.format("reasoning"))
    assert response.status_code == 200
    assert response.json() == {
        "team": "reasoning",
        "families": 2,
        "pool_versions": 2,
        "verifiers": 1,
        "curricula": 1,
    }


def test_it_counts_nothing_for_a_new_team_and_nothing_of_other_teams(api, team, outsider):
    from crucible.accounts.models import Team

    make_things(outsider, Team.objects.get(slug="elsewhere"))
    counts = api.get(URL.format("reasoning")).json()
    assert counts == {
        "team": "reasoning",
        "families": 0,
        "pool_versions": 0,
        "verifiers": 0,
        "curricula": 0,
    }


def test_it_hides_another_teams_summary(client_for, team, outsider):
    assert client_for(outsider).get(URL.format("reasoning")).status_code == 404
    assert client_for(None).get(URL.format("reasoning")).status_code == 401


def test_it_answers_as_its_schema_documents(api, team, openapi):
    operation = openapi["paths"]["/api/v1/teams/{team_slug}/summary/"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    documented = json_schema({**schema, "components": openapi["components"]})
    component = openapi["components"]["schemas"]["TeamSummary"]
    assert set(component["required"]) == {
        "team",
        "families",
        "pool_versions",
        "verifiers",
        "curricula",
    }
    assert component["properties"]["families"]["type"] == "integer"
    jsonschema.validate(api.get(URL.format("reasoning")).json(), documented)
