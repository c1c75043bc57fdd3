"""What the schema states, the API enforces: the fixes the schemathesis run over a live server
(scripts/schema_conformance.py) led to, one request each."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from tasks_app.services import pools

pytestmark = pytest.mark.django_db


def fields_of(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [error["field"] for error in response.json()["errors"]]


@pytest.mark.parametrize("size", ["0", "-1", "abc", "1.5"])
def test_a_page_size_that_is_not_a_whole_number_from_1_is_refused_by_name(api, team, size):
    response = api.get("/api/v1/families/", {"page_size": size})
    assert response.status_code == 400, response.content
    assert fields_of(response) == ["page_size"]


def test_page_size_given_twice_is_refused_and_a_large_one_is_served_at_the_maximum(
    api, owner, team
):
    assert api.get("/api/v1/families/?page_size=2&page_size=3").status_code == 400
    for slug in ("a", "b"):
        pools.create_family(owner, team, name=slug, slug=slug, kind="string-ops")
    assert len(api.get("/api/v1/families/", {"page_size": 1}).json()["results"]) == 1
    assert len(api.get("/api/v1/families/", {"page_size": 100000}).json()["results"]) == 2


def test_a_filter_naming_no_object_of_the_callers_answers_404_and_a_non_id_400(api, team):
    missing = api.get("/api/v1/runs/", {"experiment": 999999})
    assert missing.status_code == 404, missing.content
    assert "experiment" in missing.json()["errors"][0]["message"]
    assert fields_of(api.get("/api/v1/runs/", {"experiment": "abc"})) == ["experiment"]


def test_an_enum_query_parameter_refuses_a_value_outside_it(api, owner, team):
    family = pools.create_family(owner, team, name="Digits", slug="digits", kind="string-ops")
    tasks = pools.generated_tasks(family, {1: 4}, seed=1)
    version, _ = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )
    url = f"/api/v1/pool-versions/{version.id}/tasks/"
    assert api.get(url, {"split": "train"}).status_code == 200
    refused = api.get(url, {"split": "everything"})
    assert refused.status_code == 400
    assert fields_of(refused) == ["split"]


def test_a_body_with_nested_fields_is_documented_as_json_only():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    nested = paths["/api/v1/experiments/"]["post"]["requestBody"]["content"]
    assert list(nested) == ["application/json"]
    flat = paths["/api/v1/registered-models/"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in flat
    upload = paths["/api/v1/families/{id}/versions/upload/"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in upload


def test_a_boolean_query_parameter_is_true_or_false_once(api, owner, team):
    pools.create_family(owner, team, name="Kept", slug="kept", kind="string-ops")
    assert [f["slug"] for f in api.get("/api/v1/families/").json()["results"]] == ["kept"]
    assert api.get("/api/v1/families/", {"archived": "True"}).json()["results"] == []
    assert [f["slug"] for f in api.get("/api/v1/families/", {"archived": "false"}).json()["results"]] == ["kept"]
    for refused in (api.get("/api/v1/families/", {"archived": "yes"}),
                    api.get("/api/v1/families/?archived=true&archived=false")):  # fmt: skip
        assert refused.status_code == 400 and fields_of(refused) == ["archived"]


def test_an_audit_time_given_empty_is_refused_by_name(api, team):
    assert api.get("/api/v1/audit/", {"since": "2026-01-01T00:00:00Z"}).status_code == 200
    for name in ("since", "until"):
        refused = api.get("/api/v1/audit/", {name: ""})
        assert refused.status_code == 400, refused.content
        assert fields_of(refused) == [name]


def test_an_id_filter_refuses_a_number_that_is_not_whole(api, team):
    assert api.get("/api/v1/reports/", {"evaluation": "7"}).status_code == 200
    refused = api.get("/api/v1/reports/", {"evaluation": "1.5"})
    assert refused.status_code == 400 and fields_of(refused) == ["evaluation"]
