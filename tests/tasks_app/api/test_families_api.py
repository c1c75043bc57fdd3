import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
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


def csv_file(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("tasks.csv", text.encode(), content_type="text/csv")


QUESTIONS_CSV = "question,answer,level\n" + "".join(
    f"What is {i} + {i}?,{2 * i},{'hard' if i % 2 else 'easy'}\n" for i in range(43)
)


def test_it_answers_a_missing_column_once_naming_the_mapping_field_and_the_columns(api, team):
    family = make_family(api)
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    response = api.post(url, {"file": csv_file(QUESTIONS_CSV)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "mapping.prompt",
            "code": "invalid_mapping",
            "message": "the file has no column 'prompt'; its columns are: question, answer, level",
        }
    ]
    mapping = json.dumps({"prompt": "question", "difficulty": "lvl"})
    response = api.post(
        url, {"file": csv_file(QUESTIONS_CSV), "mapping": mapping}, format="multipart"
    )
    assert [e["field"] for e in response.json()["errors"]] == ["mapping.difficulty"]
    assert PoolVersion.objects.count() == 0


def test_it_inspects_an_upload_for_its_columns_labels_and_matching_fields(
    api, client_for, team, outsider
):
    family = make_family(api)
    url = f"/api/v1/families/{family['id']}/versions/inspect/"
    response = api.post(url, {"file": csv_file(QUESTIONS_CSV)}, format="multipart")
    assert response.status_code == 200, response.json()
    summary = response.json()
    assert summary["format"] == "csv" and summary["columns"] == ["question", "answer", "level"]
    assert summary["rows_read"] == 43 and summary["sample"][0]["question"] == "What is 0 + 0?"
    assert summary["labels"] == {"level": ["easy", "hard"]}
    assert summary["suggested_mapping"] == {"answer": "answer"}
    assert summary["required_fields"] == ["prompt", "answer"]
    assert PoolVersion.objects.count() == 0
    outside = client_for(outsider).post(
        url, {"file": csv_file(QUESTIONS_CSV)}, format="multipart"
    )
    assert outside.status_code == 404


def test_it_grades_text_difficulties_only_by_the_labels_given(api, team):
    family = make_family(api)
    rows = [
        {"prompt": "What is 1 + 1?", "answer": "2", "difficulty": "easy"},
        {"prompt": "What is 12 * 13?", "answer": "156", "difficulty": "hard"},
    ]
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    response = api.post(url, {"file": jsonl(rows)}, format="multipart")
    assert response.status_code == 400
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert "label 'easy' has no level" in errors["rows[1].difficulty"]
    assert "label 'hard' has no level" in errors["rows[2].difficulty"]
    labels = json.dumps({"easy": 1, "hard": 5})
    response = api.post(url, {"file": jsonl(rows), "difficulty_labels": labels}, format="multipart")
    assert response.status_code == 201, response.json()
    assert response.json()["source_detail"]["difficulty_labels"] == {"easy": 1, "hard": 5}
    levels = PoolTask.objects.values_list("difficulty", flat=True)
    assert sorted(levels) == [1, 5]


@pytest.mark.parametrize(
    "labels, field",
    [({"hard": 9}, "difficulty_labels.hard"), (["hard"], "difficulty_labels")],
)
def test_it_names_a_difficulty_label_it_cannot_use(api, team, labels, field):
    family = make_family(api)
    rows = [{"prompt": "What is 1 + 1?", "answer": "2", "difficulty": "hard"}]
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/upload/",
        {"file": jsonl(rows), "difficulty_labels": json.dumps(labels)},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == field
    assert PoolVersion.objects.count() == 0


def test_it_applies_the_one_template_the_family_shows_or_keeps_prompts_as_uploaded(api, team):
    family = make_family(api, kind="string-ops")
    rows = [{"prompt": "Reverse 123. Reply as 'Answer: <digits>'.", "answer": "321"}]
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    assert api.post(url, {"file": jsonl(rows)}, format="multipart").status_code == 201
    shown = api.get("/api/v1/family-kinds/").json()
    template = next(k for k in shown if k["name"] == "string-ops")["prompt_template"]
    assert PoolTask.objects.get().prompt == template.format(question=rows[0]["prompt"])

    body = {"file": jsonl(rows), "prompt_mode": "as_is", "mode": "replace"}
    assert api.post(url, body, format="multipart").status_code == 201
    assert PoolTask.objects.filter(version__number=2).get().prompt == rows[0]["prompt"]

    patched = api.patch(
        f"/api/v1/families/{family['id']}/", {"prompt_template": "Task: {question}"}, format="json"
    )
    assert patched.status_code == 200
    body = {"file": jsonl(rows), "mode": "replace"}
    assert api.post(url, body, format="multipart").status_code == 201
    assert PoolTask.objects.filter(version__number=3).get().prompt == f"Task: {rows[0]['prompt']}"


def test_it_refuses_a_prompt_template_with_placeholders_the_kind_does_not_fill(api, team):
    response = api.post(
        "/api/v1/families/",
        {"team": "reasoning", "name": "x", "kind": "arithmetic", "prompt_template": "{code}"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "prompt_template"
    assert "this kind fills {question}" in response.json()["errors"][0]["message"]
    family = make_family(api)
    padded = {"prompt_template": "{question:>99999999}"}
    response = api.patch(f"/api/v1/families/{family['id']}/", padded, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "prompt_template"


def test_it_refuses_prompts_as_is_for_a_kind_without_a_prompt_column(api, team):
    family = make_family(api, kind="json-schema")
    rows = [{"schema": {"type": "object"}, "facts": {"a": 1}}]
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/upload/",
        {"file": jsonl(rows), "prompt_mode": "as_is"},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "prompt_mode"


def sums(numbers) -> list[dict[str, str]]:
    return [{"prompt": f"What is {n} + {n}?", "answer": str(2 * n)} for n in numbers]


def test_it_previews_an_upload_appended_to_the_latest_version_then_freezes_it(api, team):
    family = make_family(api)
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    assert api.post(url, {"file": jsonl(sums(range(1, 6)))}, format="multipart").status_code == 201
    rows = sums([1, 2, 10, 11])
    preview = api.post(f"{url}preview/", {"file": jsonl(rows)}, format="multipart")
    assert preview.status_code == 200, preview.json()
    body = preview.json()
    assert body["changes"] == {
        "mode": "append",
        "previous": 5,
        "added": 2,
        "removed": 0,
        "kept": 5,
        "duplicates_dropped": 2,
    }
    assert body["base"] == 1 and body["version"]["task_count"] == 7
    assert [s["prompt"] for s in body["samples"]] == [
        "Compute What is 10 + 10?. Reply with the result as 'Answer: <number>'.",
        "Compute What is 11 + 11?. Reply with the result as 'Answer: <number>'.",
    ]
    assert PoolVersion.objects.count() == 1

    response = api.post(url, {"file": jsonl(rows), "base": 1}, format="multipart")
    assert response.status_code == 201, response.json()
    version = response.json()
    assert version["task_count"] == 7 and version["source_detail"]["mode"] == "append"
    assert (version["diff"]["added"], version["diff"]["removed"]) == (2, 0)
    assert version["source_detail"]["changes"] == body["changes"]


def test_it_replaces_the_latest_version_only_when_asked(api, team):
    family = make_family(api)
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    api.post(url, {"file": jsonl(sums(range(1, 6)))}, format="multipart")
    body = {"file": jsonl(sums([1, 2, 10])), "mode": "replace"}
    preview = api.post(f"{url}preview/", body, format="multipart").json()
    assert preview["changes"] == {
        "mode": "replace",
        "previous": 5,
        "added": 1,
        "removed": 3,
        "kept": 2,
        "duplicates_dropped": 0,
    }
    body = {"file": jsonl(sums([1, 2, 10])), "mode": "replace"}
    version = api.post(url, body, format="multipart").json()
    assert version["task_count"] == 3 and version["diff"]["removed"] == 3


def test_it_refuses_an_upload_whose_preview_another_version_overtook(api, team):
    family = make_family(api)
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    api.post(url, {"file": jsonl(sums([1]))}, format="multipart")
    response = api.post(url, {"file": jsonl(sums([2])), "base": 0}, format="multipart")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == "base" and "version 1 has been frozen since" in error["message"]
    assert PoolVersion.objects.count() == 1


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


def test_it_shows_the_prompts_and_levels_of_the_tasks_a_version_adds_and_removes(api, team):
    family = make_family(api)
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    long_prompt = "What is 1 + 1? " + "Think it over. " * 30
    first = [{"prompt": long_prompt, "answer": "2"}, *sums([2, 3])]
    api.post(url, {"file": jsonl(first)}, format="multipart")
    body = {"file": jsonl(sums([2, 3, 4])), "mode": "replace"}
    v2 = api.post(url, body, format="multipart").json()
    diff = v2["diff"]
    (added,) = diff["added_examples"]
    assert added["prompt"].startswith("Compute What is 4 + 4?") and added["difficulty"] == 1
    (removed,) = diff["removed_examples"]
    assert removed["prompt"].startswith("Compute What is 1 + 1? Think it over.")
    assert len(removed["prompt"]) == 201 and removed["prompt"].endswith("…")

    changes = f"/api/v1/pool-versions/{v2['id']}/changes/"
    assert [t["prompt"] for t in api.get(changes, {"side": "removed"}).json()["results"]] == [
        f"Compute {long_prompt.strip()}. Reply with the result as 'Answer: <number>'."
    ]
    assert api.get(changes, {"side": "added"}).json()["count"] == 1
    assert api.get(changes).status_code == 400


def test_it_gives_prompts_to_a_diff_stored_with_bare_hashes(api, team):
    family = make_family(api)
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    api.post(url, {"file": jsonl(sums([1]))}, format="multipart")
    v2 = api.post(url, {"file": jsonl(sums([2])), "mode": "replace"}, format="multipart").json()
    version = PoolVersion.objects.get(pk=v2["id"])
    stored = {**version.diff, "added_examples": [version.tasks.get().content_hash]}
    PoolVersion.objects.filter(pk=version.pk).update(diff=stored)  # as versions were written
    diff = api.get(f"/api/v1/pool-versions/{version.pk}/").json()["diff"]
    assert diff["added_examples"][0]["prompt"].startswith("Compute What is 2 + 2?")
    assert diff["removed_examples"][0]["prompt"].startswith("Compute What is 1 + 1?")


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


def parquet_bytes(table: pa.Table, **options: object) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, **options)
    return buffer.getvalue()


BAD_FILES = {
    "garbage as parquet": (
        "tasks.parquet",
        b"PAR1 this is not a Parquet file at all" * 10,
        "file",
        "not a Parquet file: ",
    ),
    "csv with invalid utf-8": (
        "tasks.csv",
        b"prompt,answer\nWhat is 1 + 1?,2\nWhat is \xff?,3\n",
        "rows[2]._row",
        "is not valid UTF-8 (line 3)",
    ),
    "csv field over the csv limit": (
        "tasks.csv",
        b"prompt,answer\n" + b"q" * (130 * 1024) + b",2\n",
        "rows[1]._row",
        "longer than 131072 characters, the CSV field limit",
    ),
    "jsonl nested 50,000 deep": (
        "tasks.jsonl",
        b'{"prompt": ' + b"[" * 50_000 + b"]" * 50_000 + b', "answer": "2"}\n',
        "rows[1]._row",
        "is nested more than 64 levels deep",
    ),
}


@pytest.mark.parametrize("case", BAD_FILES, ids=list(BAD_FILES))
def test_it_answers_an_unreadable_upload_with_a_400_naming_the_file_or_row(api, team, case):
    name, data, field, message = BAD_FILES[case]
    family = make_family(api)
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/upload/",
        {"file": SimpleUploadedFile(name, data)},
        format="multipart",
    )
    assert response.status_code == 400, response.content[:300]
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert message in errors[field], errors
    assert PoolVersion.objects.count() == 0


def test_it_refuses_a_compressed_upload_whose_rows_decode_past_the_limit(api, team, settings):
    settings.TASK_IMPORT_MAX_DECODED_BYTES = 1024 * 1024
    family = make_family(api)
    rows = pa.table(
        {
            "prompt": [f"What is {i} + 1?" + " " * 10_000 for i in range(1_000)],
            "answer": [str(i + 1) for i in range(1_000)],
        }
    )
    data = parquet_bytes(rows, compression="zstd", use_dictionary=False)
    assert len(data) < 64 * 1024
    response = api.post(
        f"/api/v1/families/{family['id']}/versions/upload/",
        {"file": SimpleUploadedFile("tasks.parquet", data)},
        format="multipart",
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == "file" and "once decoded; the limit is 1.0 MB" in error["message"]


@pytest.mark.parametrize("params", [True, "ops", [1, 2], 3])
def test_it_refuses_params_that_are_not_an_object(api, team, params):
    response = api.post(
        "/api/v1/families/",
        {"team": "reasoning", "name": "x", "kind": "arithmetic", "params": params},
        format="json",
    )
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "params"
    family = make_family(api)
    response = api.patch(f"/api/v1/families/{family['id']}/", {"params": params}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "params"


def frozen_family(api, name="Sums"):
    family = make_family(api, name=name)
    url = f"/api/v1/families/{family['id']}/versions/upload/"
    version = api.post(url, {"file": jsonl(sums([1, 2]))}, format="multipart").json()
    return family, version


def test_it_says_before_removing_a_pinned_family_that_it_is_archived_and_why(api, team):
    family, version = frozen_family(api)
    curriculum = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "Ramp", "config": {"families": [{"version": version["id"]}]}},
        format="json",
    )
    assert curriculum.status_code == 201, curriculum.json()
    url = f"/api/v1/families/{family['id']}/"
    plan = api.get(f"{url}removal/").json()
    assert plan["action"] == "archive" and plan["versions"] == 1
    assert plan["pins"] == [
        {
            "kind": "curriculum",
            "id": curriculum.json()["id"],
            "name": "Ramp",
            "versions": [1],
            "reason": "pinned by curriculum 'Ramp' (v1)",
        }
    ]
    response = api.delete(url)
    assert response.status_code == 200 and response.json()["action"] == "archive"
    assert api.get("/api/v1/families/").json()["count"] == 0
    archived = api.get("/api/v1/families/", {"archived": "true"}).json()["results"]
    assert [f["id"] for f in archived] == [family["id"]] and archived[0]["archived_at"]
    assert api.get(url).status_code == 200

    edit = api.patch(url, {"description": "x"}, format="json")
    assert edit.status_code == 400 and edit.json()["errors"][0]["code"] == "archived"
    assert "archived and read-only" in edit.json()["errors"][0]["message"]
    upload = api.post(f"{url}versions/upload/", {"file": jsonl(sums([3]))}, format="multipart")
    assert upload.status_code == 400 and upload.json()["errors"][0]["code"] == "archived"
    assert PoolVersion.objects.count() == 1

    restored = api.post(f"{url}restore/")
    assert restored.status_code == 200 and restored.json()["archived_at"] is None
    assert api.get("/api/v1/families/").json()["count"] == 1
    assert api.patch(url, {"description": "x"}, format="json").status_code == 200


def test_it_deletes_a_family_with_versions_nothing_pins(api, team):
    family, _ = frozen_family(api)
    url = f"/api/v1/families/{family['id']}/"
    plan = api.get(f"{url}removal/").json()
    assert plan["action"] == "delete" and plan["pins"] == []
    assert plan["message"] == (
        "It will be deleted and its 1 version(s) (2 tasks). This cannot be undone."
    )
    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404
    assert PoolVersion.objects.count() == 0 and PoolTask.objects.count() == 0


def test_it_lets_only_editors_remove_archive_or_restore(api, client_for, team, teammate, outsider):
    family, _ = frozen_family(api)
    url = f"/api/v1/families/{family['id']}/"
    viewer = client_for(teammate)
    assert viewer.get(f"{url}removal/").status_code == 200
    assert viewer.delete(url).status_code == 403
    assert viewer.post(f"{url}archive/").status_code == 403
    assert client_for(outsider).get(f"{url}removal/").status_code == 404
    assert api.post(f"{url}archive/").json()["archived_at"]
    assert viewer.post(f"{url}restore/").status_code == 403
    assert TaskFamily.objects.get().archived_at is not None


def test_it_refuses_a_duplicate_family_name_instead_of_suffixing_the_slug(api, team):
    make_family(api, name="API arithmetic")
    response = api.post(
        "/api/v1/families/",
        {"team": "reasoning", "name": "api ARITHMETIC", "kind": "arithmetic"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "name",
            "code": "unique",
            "message": "the family 'API arithmetic' already has this name",
        }
    ]
    response = api.post(
        "/api/v1/families/",
        {"team": "reasoning", "name": "API: arithmetic", "kind": "arithmetic"},
        format="json",
    )
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "slug"
    assert TaskFamily.objects.count() == 1
    other = make_family(api, name="Other")
    response = api.patch(
        f"/api/v1/families/{other['id']}/", {"name": "API arithmetic"}, format="json"
    )
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "name"


def test_it_has_one_near_duplicate_default_for_generated_and_uploaded_versions(api, team):
    family = make_family(api)
    assert family["version_defaults"] == {
        "near_duplicates": True,
        "mode": "replace",
        "prompt_mode": "template",
    }
    generated = api.post(
        f"/api/v1/families/{family['id']}/versions/generate/", {"counts": {"2": 10}}, format="json"
    ).json()
    assert generated["source_detail"]["near_duplicates"] is True
    uploaded = api.post(
        f"/api/v1/families/{family['id']}/versions/upload/",
        {"file": jsonl(sums([1, 2]))},
        format="multipart",
    ).json()
    assert uploaded["source_detail"]["near_duplicates"] is True
    defaults = api.get(f"/api/v1/families/{family['id']}/").json()["version_defaults"]
    assert defaults["mode"] == "append"

    schema = api.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    assert schema["GenerateRequest"]["properties"]["near_duplicates"]["default"] is True
    assert schema["UploadRequest"]["properties"]["near_duplicates"]["default"] is True
