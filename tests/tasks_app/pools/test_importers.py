import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tasks_app.families.base import RowError
from tasks_app.pools.importers import (
    ImportLimitExceeded,
    Limits,
    apply_mapping,
    detect_format,
    iter_records,
)

ROWS = [{"question": f"What is {i} + 1?", "answer": str(i + 1)} for i in range(5)]


def _jsonl(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_it_streams_jsonl_with_line_numbers_and_skips_blank_lines(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [json.dumps(ROWS[0]), "", json.dumps(ROWS[1])])
    assert [(row, rec["answer"]) for row, rec in iter_records(path)] == [(1, "1"), (3, "2")]


def test_it_turns_malformed_lines_into_row_errors(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, ['{"question": ', "[1, 2]", json.dumps(ROWS[0])])
    results = dict(iter_records(path))
    assert isinstance(results[1], RowError) and "invalid JSON" in results[1].reason
    assert isinstance(results[2], RowError) and "JSON object" in results[2].reason
    assert results[3] == ROWS[0]


def test_it_reads_csv_and_parquet_the_same_as_jsonl(tmp_path: Path) -> None:
    csv_path = tmp_path / "rows.csv"
    with open(csv_path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["question", "answer"])
        writer.writeheader()
        writer.writerows(ROWS)
    pq_path = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), pq_path, row_group_size=2)
    assert list(iter_records(csv_path)) == list(enumerate(ROWS, start=1))
    assert list(iter_records(pq_path)) == list(enumerate(ROWS, start=1))


def test_it_flags_csv_rows_with_extra_cells(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("question,answer\nq,1\nq,2,surplus\n")
    results = dict(iter_records(path))
    assert isinstance(results[2], RowError) and "beyond the header" in results[2].reason


def test_it_enforces_size_and_row_limits_with_clear_messages(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [json.dumps(r) for r in ROWS])
    with pytest.raises(ImportLimitExceeded, match="limit is"):
        list(iter_records(path, limits=Limits(max_bytes=10)))
    with pytest.raises(ImportLimitExceeded, match="more than 3 rows"):
        list(iter_records(path, limits=Limits(max_rows=3)))


def test_it_detects_formats_and_refuses_unknown_ones(tmp_path: Path) -> None:
    assert detect_format("a.ndjson") == "jsonl" and detect_format("x", "CSV") == "csv"
    with pytest.raises(ImportLimitExceeded, match="unsupported format"):
        detect_format("a.xlsx")


def test_it_maps_source_columns_to_kind_fields() -> None:
    mapped = apply_mapping({"question": "q", "answer": "1", "id": 7}, {"prompt": "question"})
    assert (mapped["prompt"], mapped["answer"], mapped["id"]) == ("q", "1", 7)
    assert apply_mapping({"prompt": "stale", "q": "new"}, {"prompt": "q"})["prompt"] == "new"
