import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tasks_app.models import PoolTask, PoolVersion, TaskFamily

pytestmark = pytest.mark.django_db


def make_family(api, kind="arithmetic", **extra):
    response = api.post(
        "/api/v1/families/",
        {"team": "reasoning", "name": f"{kind} family", "kind": kind, **extra},
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()


def jsonl(rows) -> SimpleUploadedFile:
    data = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows).encode()
    return SimpleUploadedFile("tasks.jsonl", data, content_type="application/jsonl")


def test_it_lists_the_registered_kinds(api):
    kinds = {k["name"] for k in api.get("/api/v1/family-kinds/").json()}
    assert {
        "arithmetic",
        "string-ops",
        "python-function",
        "math-word",
        "json-schema",
        "sql-query",
    } <= kinds


def test_it_names_an_unknown_kind_and_bad_params(api, team):
    response = api.post(
        "/api/v1/families/", {"team": "reasoning", "name": "x", "kind": "poetry"}, format="json"
    )
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "kind"
    response = api.post(
        "/api/v1/families/",
        {"team": "reasoning", "name": "x", "kind": "arithmetic", "params": {"ops": ["^"]}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"].startswith("params")
    assert TaskFamily.objects.count() == 0


def test_it_previews_generated_tasks_without_saving(api, team):
    family = make_family(api)
    preview = api.post(
        f"/api/v1/families/{family['id']}/preview/",
        {"counts": {"1": 20, "2": 20}, "seed": 3},
        format="json",
    ).json()
    assert preview["version"]["task_count"] <= 40 and len(preview["samples"]) == 8
    assert set(preview["version"]["difficulty_histogram"]) <= {"1", "2"}
    assert PoolVersion.objects.count() == 0


def test_it_freezes_generated_tasks_as_an_immutable_version_with_splits(api, team):
    family = make_family(api, held_out_fraction=0.2)
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/generate/",
        {"counts": {"2": 200, "3": 200}},
        format="json",
    )
    assert response.status_code == 201, response.json()
    version = response.json()
    assert version["number"] == 1 and version["task_count"] == PoolTask.objects.count()
    assert version["held_out_count"] == PoolTask.objects.filter(split="held_out").count() > 0
    assert version["difficulty_histogram"]["train"]["2"] > 0
    again = api.post(
        f"/api/v1/families/{family['id']}/versions/generate/",
        {"counts": {"2": 200, "3": 200}},
        format="json",
    )
    assert (
        again.status_code == 200 and again.json()["id"] == version["id"]
    )  # same content, same version


def test_it_imports_an_upload_with_a_field_mapping_and_removes_duplicates(api, team):
    family = make_family(api, kind="math-word")
    rows = [
        {
            "q": f"Tom has {i} apples and buys {i + 3} more. How many apples does he have now?",
            "a": f"#### {2 * i + 3}",
        }
        for i in range(30)
    ]
    rows += [rows[0], {"q": rows[1]["q"].upper(), "a": rows[1]["a"]}]
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/upload/",
        {"file": jsonl(rows), "mapping": json.dumps({"prompt": "q", "answer": "a"})},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    version = response.json()
    assert version["dedup"]["exact_duplicates"] == 2, version["dedup"]
    assert {r["row"] for r in version["dedup"]["removed"]} >= {31, 32}
    assert version["task_count"] <= 30 and version["source"] == "upload"


def test_it_rejects_a_malformed_upload_whole_with_row_errors(api, team):
    family = make_family(api, kind="math-word")
    rows = [
        {"q": "What is 2 + 2?", "a": "#### 4"},
        "{not json",
        {"q": "", "a": "#### 1"},
        {"q": "Fine?", "a": "#### x"},
    ]
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/upload/",
        {"file": jsonl(rows), "mapping": json.dumps({"prompt": "q", "answer": "a"})},
        format="multipart",
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors[0]["field"] == "file" and "nothing was imported" in errors[0]["message"]
    row_fields = [e["field"] for e in errors[1:]]
    assert row_fields[0].startswith("rows[2]") and any(
        f.startswith("rows[3].q") for f in row_fields
    )
    assert any(f.startswith("rows[4].a") for f in row_fields)
    assert PoolVersion.objects.count() == 0 and PoolTask.objects.count() == 0


def test_it_makes_a_new_version_for_an_edit_with_a_diff(api, team):
    family = make_family(api)
    v1 = api.post(
        f"/api/v1/families/{family['id']}/versions/generate/", {"counts": {"1": 30}}, format="json"
    ).json()
    hashes = [
        t["content_hash"]
        for t in api.get(f"/api/v1/pool-versions/{v1['id']}/tasks/").json()["results"][:3]
    ]
    v2 = api.post(
        f"/api/v1/families/{family['id']}/versions/edit/",
        {"base": 1, "remove": hashes},
        format="json",
    )
    assert v2.status_code == 201, v2.json()
    assert v2.json()["diff"]["removed"] == 3 and v2.json()["diff"]["against"] == 1
    assert v2.json()["task_count"] == v1["task_count"] - 3
    assert PoolVersion.objects.get(number=1).task_count == v1["task_count"]


def test_it_pages_and_filters_a_versions_tasks(api, team):
    family = make_family(api)
    version = api.post(
        f"/api/v1/families/{family['id']}/versions/generate/",
        {"counts": {"1": 40, "2": 40}},
        format="json",
    ).json()
    page = api.get(
        f"/api/v1/pool-versions/{version['id']}/tasks/?difficulty=2&split=train&page_size=10"
    ).json()
    assert (
        len(page["results"]) == 10
        and page["count"] == version["difficulty_histogram"]["train"]["2"]
    )
    assert {t["difficulty"] for t in page["results"]} == {2}


@pytest.mark.slow
def test_it_imports_the_bundled_humaneval(api, team):
    family = make_family(api, kind="python-function")
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/dataset/",
        {"dataset": "humaneval"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["task_count"] == 164


def test_it_refuses_a_dataset_of_another_kind(api, team):
    family = make_family(api)
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/dataset/", {"dataset": "gsm8k"}, format="json"
    )
    assert response.status_code == 400 and "math-word" in response.json()["errors"][0]["message"]


def test_it_keeps_families_inside_the_team(api, client_for, team, outsider, teammate):
    family = make_family(api)
    assert client_for(outsider).get(f"/api/v1/families/{family['id']}/").status_code == 404
    assert (
        client_for(outsider)
        .post(
            f"/api/v1/families/{family['id']}/versions/generate/",
            {"counts": {"1": 3}},
            format="json",
        )
        .status_code
        == 404
    )
    assert (
        client_for(teammate)
        .post(
            f"/api/v1/families/{family['id']}/versions/generate/",
            {"counts": {"1": 3}},
            format="json",
        )
        .status_code
        == 403
    )
