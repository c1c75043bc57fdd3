import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tasks_app.families.base import RowError
from tasks_app.pools.importers import (
    ImportLimitExceeded,
    ImportUnreadable,
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


def _parquet(tmp_path: Path, table: pa.Table, **options: object) -> Path:
    path = tmp_path / "rows.parquet"
    pq.write_table(table, path, **options)
    return path


def test_it_refuses_a_parquet_file_declaring_too_many_rows_before_reading_one(
    tmp_path: Path,
) -> None:
    rows = pa.table({"question": ["What is 1 + 1?"] * 200_000, "answer": ["2"] * 200_000})
    path = _parquet(tmp_path, rows, compression="zstd")
    assert path.stat().st_size < 24 * 1024
    records = iter_records(path, limits=Limits(max_rows=100_000))
    with pytest.raises(ImportLimitExceeded, match="200000 rows; the limit is 100000"):
        next(records)


def test_it_refuses_a_parquet_file_that_decompresses_past_the_decoded_limit(
    tmp_path: Path,
) -> None:
    rows = pa.table({"question": [f"{i}" + "x" * 10_000 for i in range(1_000)]})
    path = _parquet(tmp_path, rows, compression="zstd", use_dictionary=False)
    assert path.stat().st_size < 256 * 1024
    records = iter_records(path, limits=Limits(max_decoded_bytes=1024 * 1024))
    with pytest.raises(ImportLimitExceeded, match=r"at least 9\.\d MB once decoded; the limit"):
        next(records)


def test_it_counts_a_repeated_parquet_string_before_expanding_it(tmp_path: Path) -> None:
    # One 10 KB string stored once in a dictionary and referenced 20,000 times: 200 MB decoded.
    rows = pa.table({"question": ["x" * 10_000] * 20_000, "answer": ["2"] * 20_000})
    path = _parquet(tmp_path, rows)
    assert path.stat().st_size < 16 * 1024
    records = iter_records(path, limits=Limits(max_decoded_bytes=8 * 1024 * 1024))
    with pytest.raises(ImportLimitExceeded, match="more than .* once decoded; the limit is 8.0 MB"):
        next(records)


def test_it_counts_run_length_encoded_values_from_the_parquet_footer(tmp_path: Path) -> None:
    path = _parquet(tmp_path, pa.table({"tests": [[0] * 2_000_000]}))
    records = iter_records(path, limits=Limits(max_decoded_bytes=4 * 1024 * 1024))
    with pytest.raises(ImportLimitExceeded, match="at least 15.3 MB once decoded"):
        next(records)


def test_it_reads_parquet_maps_lists_and_structs_within_the_limits(tmp_path: Path) -> None:
    rows = [{"tags": {"level": "2"}, "tests": ["a", "b"], "meta": {"k": "v"}}] * 3
    path = _parquet(tmp_path, pa.Table.from_pylist(rows))
    assert [record for _, record in iter_records(path)] == rows


def test_it_says_a_garbage_file_is_not_parquet(tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    path.write_bytes(b"question,answer\nWhat is 1 + 1?,2\n" * 100)
    with pytest.raises(ImportUnreadable, match="not a Parquet file"):
        list(iter_records(path))


def test_it_reports_the_csv_row_with_invalid_utf8_and_reads_on(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_bytes(b"question,answer\nq1,1\nq\xff2,2\nq3,3\n")
    results = dict(iter_records(path))
    assert isinstance(results[2], RowError)
    assert results[2].reason == "is not valid UTF-8 (line 3)"
    assert results[1] == {"question": "q1", "answer": "1"}
    assert results[3] == {"question": "q3", "answer": "3"}


def test_it_reports_a_csv_field_over_the_csv_field_limit_on_its_row(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("question,answer\nq1,1\n" + "q" * (200 * 1024) + ",2\nq3,3\n")
    results = list(iter_records(path))
    assert results[0] == (1, {"question": "q1", "answer": "1"})
    row, error = results[-1]
    assert row == 2 and isinstance(error, RowError)
    assert "longer than 131072 characters, the CSV field limit (line 3)" in error.reason


def test_it_reports_a_jsonl_row_nested_too_deep(tmp_path: Path) -> None:
    very_deep = '{"q": ' + "[" * 50_000 + "]" * 50_000 + "}"
    deep = '{"q": ' + "[" * 100 + "]" * 100 + "}"
    shallow = json.dumps({"q": [[["fine"]]], "answer": "1"})
    results = dict(iter_records(_jsonl(tmp_path, [very_deep, deep, shallow])))
    for row in (1, 2):
        assert isinstance(results[row], RowError)
        assert results[row].reason == "is nested more than 64 levels deep"
    assert results[3] == json.loads(shallow)


def test_it_splits_csv_lines_on_any_line_ending(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_bytes(b"question,answer\rq1,1\r\nq2,2\nq3,3\r")
    assert [record["answer"] for _, record in iter_records(path)] == ["1", "2", "3"]
