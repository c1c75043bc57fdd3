"""The pool endpoints answer exactly as their schema documents (no key missing or extra)."""

import json

import jsonschema
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.crucible.test_api_schema import documented

pytestmark = pytest.mark.django_db


@pytest.fixture
def family(api, team) -> dict:  # type: ignore[no-untyped-def]
    body = {"team": "reasoning", "name": "Sums", "kind": "arithmetic", "params": {"ops": ["+"]}}
    return api.post("/api/v1/families/", body, format="json").json()


def jsonl(numbers) -> SimpleUploadedFile:  # type: ignore[no-untyped-def]
    rows = [{"prompt": f"What is {n} + {n}?", "answer": str(2 * n)} for n in numbers]
    data = "\n".join(json.dumps(row) for row in rows).encode()
    return SimpleUploadedFile("tasks.jsonl", data, content_type="application/jsonl")


def test_it_answers_a_preview_of_generated_tasks_as_documented(api, family, openapi):
    body = {"counts": {"1": 30, "2": 30}, "seed": 3, "near_duplicates": True}
    answer = api.post(f"/api/v1/families/{family['id']}/preview/", body, format="json")
    assert answer.status_code == 200
    schema = documented(openapi, "/api/v1/families/{id}/preview/", "post")
    jsonschema.validate(answer.json(), schema)
    assert answer.json()["samples"] and "removed" in answer.json()["dedup"]


def test_it_answers_the_family_kinds_as_documented(api, openapi):
    kinds = api.get("/api/v1/family-kinds/").json()
    jsonschema.validate(kinds, documented(openapi, "/api/v1/family-kinds/", "get"))
    assert {kind["name"] for kind in kinds} >= {"arithmetic", "sql-query"}


def test_it_answers_a_version_its_tasks_and_an_upload_preview_as_documented(api, family, openapi):
    url = f"/api/v1/families/{family['id']}/versions/"
    first = api.post(f"{url}generate/", {"counts": {"1": 20, "2": 20}}, format="json").json()
    second = api.post(f"{url}generate/", {"counts": {"1": 30}, "seed": 1}, format="json").json()
    for version in (first, second):
        shown = api.get(f"/api/v1/pool-versions/{version['id']}/").json()
        jsonschema.validate(shown, documented(openapi, "/api/v1/pool-versions/{id}/", "get"))
    assert shown["diff"]["against"] == 1 and shown["difficulty_histogram"]["train"]
    tasks = api.get(f"/api/v1/pool-versions/{second['id']}/tasks/").json()
    jsonschema.validate(tasks, documented(openapi, "/api/v1/pool-versions/{id}/tasks/", "get"))
    preview = api.post(f"{url}upload/preview/", {"file": jsonl([1, 2])}, format="multipart")
    assert preview.status_code == 200, preview.json()
    path = "/api/v1/families/{id}/versions/upload/preview/"
    jsonschema.validate(preview.json(), documented(openapi, path, "post"))


def test_it_documents_the_json_of_a_version_and_a_family(openapi):
    schemas = openapi["components"]["schemas"]
    version = schemas["PoolVersion"]["properties"]
    assert version["dedup"]["allOf"] == [{"$ref": "#/components/schemas/DedupReport"}]
    histogram = version["difficulty_histogram"]["allOf"]
    assert histogram == [{"$ref": "#/components/schemas/SplitHistogram"}]
    assert schemas["Family"]["properties"]["params"]["type"] == "object"
