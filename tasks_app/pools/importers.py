"""Streaming readers for uploaded task files (JSONL, CSV, Parquet) and the row-error contract.

Rows are read one at a time (Parquet one record batch at a time), so a large upload is never
held in memory whole. A malformed row (bad JSON, not an object) is reported as a row error,
never raised past the reader, so one import can list every bad row it saw.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tasks_app.families.base import RowError

FORMATS = ("jsonl", "csv", "parquet")
MAX_LISTED_ERRORS = 100
"""Row errors listed in a rejection; the total count is always given."""

Record = dict[str, Any]


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 512 * 1024 * 1024
    max_rows: int = 1_000_000


@dataclass(frozen=True)
class RowIssue:
    row: int
    """1-based: the line number in JSONL, the data-row number in CSV (header excluded) and
    Parquet."""
    field: str
    reason: str


class ImportRejected(ValueError):
    """The whole import is refused; ``errors`` lists the first bad rows, ``error_count`` all."""

    def __init__(self, errors: list[RowIssue], error_count: int, message: str = "") -> None:
        self.errors = errors
        self.error_count = error_count
        super().__init__(message or f"{error_count} invalid row(s); nothing was imported")

    def to_dict(self) -> dict[str, Any]:
        return {
            "detail": str(self),
            "error_count": self.error_count,
            "errors": [asdict(e) for e in self.errors],
        }


class ImportLimitExceeded(ImportRejected):
    """The file is larger, or has more rows, than the limits allow."""

    def __init__(self, message: str) -> None:
        super().__init__([], 0, message)


def detect_format(path: str | Path, declared: str | None = None) -> str:
    """The declared format, else the one the file name implies (``.jsonl.gz`` is not read)."""
    fmt = (declared or "").lower().lstrip(".")
    if not fmt:
        suffix = Path(path).suffix.lower().lstrip(".")
        fmt = {"json": "jsonl", "ndjson": "jsonl", "pq": "parquet"}.get(suffix, suffix)
    if fmt not in FORMATS:
        raise ImportLimitExceeded(f"unsupported format {fmt or 'unknown'!r}; use one of {FORMATS}")
    return fmt


def check_size(path: str | Path, limits: Limits) -> int:
    size = os.stat(path).st_size
    if size > limits.max_bytes:
        raise ImportLimitExceeded(f"the file is {_mb(size)}; the limit is {_mb(limits.max_bytes)}")
    return size


def _mb(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB"


def iter_records(
    path: str | Path, fmt: str | None = None, limits: Limits | None = None
) -> Iterator[tuple[int, Record | RowError]]:
    """(row number, record or the RowError that made it unreadable), streaming."""
    limits = limits or Limits()
    check_size(path, limits)
    reader = {"jsonl": _jsonl, "csv": _csv, "parquet": _parquet}[detect_format(path, fmt)]
    count = 0
    for row, record in reader(path):
        count += 1
        if count > limits.max_rows:
            raise ImportLimitExceeded(f"the file has more than {limits.max_rows} rows")
        yield row, record


def _jsonl(path: str | Path) -> Iterator[tuple[int, Record | RowError]]:
    # Bytes, decoded per line, so one line of bad UTF-8 is a row error, not a crash.
    with open(path, "rb") as handle:
        for line_no, line in enumerate(handle, start=1):
            if line.strip():
                yield line_no, _json_object(line)


def _json_object(line: bytes) -> Record | RowError:
    try:
        value = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return RowError("_row", "is not valid UTF-8")
    except json.JSONDecodeError as exc:
        return RowError("_row", f"invalid JSON at column {exc.colno}: {exc.msg}")
    if not isinstance(value, dict):
        return RowError("_row", f"must be a JSON object, got {type(value).__name__}")
    return value


def _csv(path: str | Path) -> Iterator[tuple[int, Record | RowError]]:
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for row, record in enumerate(reader, start=1):
            if None in record:  # more cells than header columns
                yield row, RowError("_row", f"has {len(record[None])} cell(s) beyond the header")
            else:
                yield row, record


def _parquet(path: str | Path) -> Iterator[tuple[int, Record | RowError]]:
    import pyarrow.parquet as pq

    row = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=4096):
        for record in batch.to_pylist():
            row += 1
            yield row, record


def apply_mapping(record: Mapping[str, Any], mapping: Mapping[str, str]) -> Record:
    """Rename source columns to the kind's fields; unmapped fields keep their own names."""
    out = dict(record)
    for target, source in mapping.items():
        if source != target:
            out.pop(target, None)
            if source in record:
                out[target] = record[source]
    return out


def source_field(field: str, mapping: Mapping[str, str]) -> str:
    """The column the user knows a kind's field by, for error messages."""
    return mapping.get(field, field)
