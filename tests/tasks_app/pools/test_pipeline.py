import json
from pathlib import Path

import pytest

from tasks_app.pools.grading import FieldGrading
from tasks_app.pools.importers import ImportRejected
from tasks_app.pools.pipeline import ImportSpec, plan_import

SPEC = ImportSpec(kind="math-word", mapping={"prompt": "question", "difficulty": "level"})


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


def test_it_grades_difficulty_from_a_labelled_field(tmp_path: Path) -> None:
    rows = [_row(1, level="easy"), _row(2, level="hard"), _row(3, level=2)]
    spec = ImportSpec(kind="math-word", mapping=SPEC.mapping, grading=FieldGrading())
    plan = plan_import(_write(tmp_path, rows), spec)
    assert [p.task.difficulty for p in plan.iter_tasks()] == [1, 3, 2]
    assert plan.summary.difficulty_histogram == {1: 1, 2: 1, 3: 1}


def test_it_gives_the_same_version_when_the_same_data_is_reimported(tmp_path: Path) -> None:
    rows = [_row(i) for i in range(30)]
    first = plan_import(_write(tmp_path, rows), SPEC)
    second = plan_import(_write(tmp_path, list(reversed(rows))), SPEC)
    assert first.summary.content_hash == second.summary.content_hash
    splits = {p.content_hash: p.split for p in first.iter_tasks()}
    assert splits == {p.content_hash: p.split for p in second.iter_tasks()}
