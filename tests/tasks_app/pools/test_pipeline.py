import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tasks_app.families.registry import load_kind
from tasks_app.pools.grading import FieldGrading
from tasks_app.pools.importers import ImportRejected, MappingRejected, inspect_file
from tasks_app.pools.pipeline import ImportSpec, PreviousTask, plan_import, suggest_mapping

SPEC = ImportSpec(kind="math-word", mapping={"prompt": "question"})
LEVELLED = {"prompt": "question", "difficulty": "level"}


def _write(tmp_path: Path, rows: list[object]) -> Path:
    path = tmp_path / "upload.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _row(i: int, **extra: object) -> dict[str, object]:
    words = " ".join(f"w{i}x{j}" for j in range(40))
    return {"question": f"Problem {i}: {words}?", "answer": f"#### {i}", **extra}


def test_it_rejects_a_malformed_upload_whole_with_row_level_errors(tmp_path: Path) -> None:
    rows = [_row(1), "{oops", _row(3, answer="no number"), {"answer": "#### 4"}, _row(5)]
    with pytest.raises(ImportRejected) as exc:
        plan_import(_write(tmp_path, rows), SPEC)
    errors = [(e.row, e.field) for e in exc.value.errors]
    assert errors == [(2, "_row"), (3, "answer"), (4, "question")]
    assert exc.value.error_count == 3
    assert exc.value.to_dict()["errors"][1]["reason"].startswith("has no final number")


def test_it_lists_the_first_hundred_errors_and_counts_all(tmp_path: Path) -> None:
    with pytest.raises(ImportRejected) as exc:
        plan_import(_write(tmp_path, ["[]"] * 150), SPEC)
    assert len(exc.value.errors) == 100 and exc.value.error_count == 150


def test_it_plans_a_version_with_dedup_counts_and_streams_kept_tasks(tmp_path: Path) -> None:
    rows = [_row(i) for i in range(40)]
    near = dict(rows[3], question=rows[3]["question"] + " Explain.")
    rows += [dict(rows[0], question=rows[0]["question"].upper()), near]
    plan = plan_import(_write(tmp_path, rows), SPEC)
    assert (plan.dedup.exact_count, plan.dedup.near_count) == (1, 1)
    assert plan.dedup.removed[0].row == 41 and plan.dedup.removed[0].duplicate_of == 1
    planned = list(plan.iter_tasks())
    assert len(planned) == plan.summary.task_count == 40
    assert {p.split for p in planned} <= {"train", "held_out"}
    assert plan.to_dict()["dedup"]["near_duplicates"] == 1


def test_it_grades_difficulty_from_labels_the_importer_mapped(tmp_path: Path) -> None:
    rows = [_row(1, level="easy"), _row(2, level="hard"), _row(3, level=2)]
    grading = FieldGrading(labels={"easy": 1, "hard": 5})
    spec = ImportSpec(kind="math-word", mapping=LEVELLED, grading=grading)
    plan = plan_import(_write(tmp_path, rows), spec)
    assert [p.task.difficulty for p in plan.iter_tasks()] == [1, 5, 2]
    assert plan.summary.difficulty_histogram == {1: 1, 2: 1, 5: 1}


def test_it_refuses_a_text_difficulty_nobody_mapped_naming_the_column(tmp_path: Path) -> None:
    rows = [_row(1, level=2), _row(2, level="hard")]
    spec = ImportSpec(kind="math-word", mapping=LEVELLED, grading=FieldGrading())
    with pytest.raises(ImportRejected) as exc:
        plan_import(_write(tmp_path, rows), spec)
    (issue,) = exc.value.errors
    assert (issue.row, issue.field) == (2, "level") and "'hard'" in issue.reason


def test_it_gives_the_same_version_when_the_same_data_is_reimported(tmp_path: Path) -> None:
    rows = [_row(i) for i in range(30)]
    first = plan_import(_write(tmp_path, rows), SPEC)
    second = plan_import(_write(tmp_path, list(reversed(rows))), SPEC)
    assert first.summary.content_hash == second.summary.content_hash
    splits = {p.content_hash: p.split for p in first.iter_tasks()}
    assert splits == {p.content_hash: p.split for p in second.iter_tasks()}


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_it_names_a_missing_column_once_with_the_columns_the_file_has(tmp_path, fmt) -> None:
    rows = [{"question": f"What is {i} + 1?", "answer": str(i + 1)} for i in range(43)]
    path = _write_as(tmp_path, rows, fmt)
    with pytest.raises(MappingRejected) as exc:
        plan_import(path, ImportSpec(kind="arithmetic", fmt=fmt))
    assert exc.value.problems == {
        "prompt": "the file has no column 'prompt'; its columns are: question, answer"
    }
    with pytest.raises(MappingRejected) as exc:
        plan_import(path, ImportSpec(kind="arithmetic", fmt=fmt, mapping={"prompt": "q"}))
    assert list(exc.value.problems) == ["prompt"] and "no column 'q'" in str(exc.value)
    plan = plan_import(path, ImportSpec(kind="arithmetic", fmt=fmt, mapping={"prompt": "question"}))
    assert plan.summary.task_count == 43


def test_it_names_a_mapped_field_the_kind_does_not_read(tmp_path: Path) -> None:
    path = _write(tmp_path, [_row(1)])
    spec = ImportSpec(kind="math-word", mapping={"prompt": "question", "promt": "question"})
    with pytest.raises(MappingRejected) as exc:
        plan_import(path, spec)
    assert list(exc.value.problems) == ["promt"]
    assert "prompt, answer, difficulty, source_id" in exc.value.problems["promt"]


def test_it_finds_a_jsonl_column_that_only_later_rows_have(tmp_path: Path) -> None:
    rows = [_row(1), _row(2, level=3)]
    plan = plan_import(_write(tmp_path, rows), ImportSpec(kind="math-word", mapping=LEVELLED))
    assert [p.task.difficulty for p in plan.iter_tasks()] == [1, 3]


def test_it_inspects_columns_first_rows_and_labels(tmp_path: Path) -> None:
    rows = [
        {"question": f"What is {i} + 1? " + "x" * 300, "answer": i + 1, "level": lv}
        for i, lv in enumerate(["easy", "hard", "2", "easy"])
    ]
    summary = inspect_file(_write(tmp_path, rows))
    assert summary.format == "jsonl" and summary.columns == ["question", "answer", "level"]
    assert summary.rows_read == 4 and len(summary.sample) == 3
    assert summary.sample[0]["question"].endswith("…") and summary.sample[0]["answer"] == 1
    assert summary.labels == {"level": ["easy", "hard"]}
    kind = load_kind("arithmetic")
    assert suggest_mapping(kind, ["Prompt", "answer", "level"]) == {
        "prompt": "Prompt",
        "answer": "answer",
    }


def _write_as(tmp_path: Path, rows: list[dict[str, object]], fmt: str) -> Path:
    path = tmp_path / f"upload.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif fmt == "csv":
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_it_renders_prompts_with_the_family_template_or_keeps_them_as_is(tmp_path: Path) -> None:
    rows = [{"prompt": " What is 2 + 3? ", "answer": "5"}]
    path = _write(tmp_path, rows)
    templated = ImportSpec(kind="arithmetic", template="Q: {question}\nReply 'Answer: <n>'.")
    (task,) = [p.task for p in plan_import(path, templated).iter_tasks()]
    assert task.prompt == "Q: What is 2 + 3?\nReply 'Answer: <n>'."
    as_is = ImportSpec(kind="arithmetic", prompt_mode="as_is")
    (task,) = [p.task for p in plan_import(path, as_is).iter_tasks()]
    assert task.prompt == " What is 2 + 3? "


def _previous(tmp_path: Path, rows: list[dict[str, object]]) -> list[PreviousTask]:
    """The tasks as stored, compared by their prompt as uploaded (kept in their meta)."""
    planned = list(plan_import(_write(tmp_path, rows), SPEC).iter_tasks())
    assert planned[0].task.meta["source_prompt"] == rows[0]["question"]
    return [
        PreviousTask(p.content_hash, p.task.difficulty, p.task.meta["source_prompt"])
        for p in planned
    ]


def test_it_appends_to_the_previous_tasks_dropping_rows_that_repeat_them(tmp_path: Path) -> None:
    previous = _previous(tmp_path, [_row(i) for i in range(3)])
    rows = [_row(0), _row(7), dict(_row(1), question=_row(1)["question"].upper()), _row(8)]
    spec = ImportSpec(kind="math-word", mapping=SPEC.mapping, mode="append")
    plan = plan_import(_write(tmp_path, rows), spec, previous=previous)
    assert plan.changes.to_dict() == {
        "mode": "append",
        "previous": 3,
        "added": 2,
        "removed": 0,
        "kept": 3,
        "duplicates_dropped": 2,
    }
    assert [(r.row, r.duplicate_of) for r in plan.dedup.removed] == [(1, -1), (3, -2)]
    assert plan.summary.task_count == 5 and len(list(plan.iter_tasks())) == 2


def test_it_counts_what_a_replacement_adds_removes_and_keeps(tmp_path: Path) -> None:
    previous = _previous(tmp_path, [_row(i) for i in range(3)])
    rows = [_row(0), _row(2), _row(7)]
    spec = ImportSpec(kind="math-word", mapping=SPEC.mapping, mode="replace")
    plan = plan_import(_write(tmp_path, rows), spec, previous=previous)
    c = plan.changes
    assert (c.added, c.removed, c.kept, c.duplicates_dropped) == (1, 1, 2, 0)
    assert plan.summary.task_count == 3
