"""Streaming readers for uploaded task files (JSONL, CSV, Parquet) and the row-error contract.

Rows are read one at a time (Parquet one record batch at a time), so a large upload is never
held in memory whole. A malformed row (bad JSON or UTF-8, not an object, nested too deep) is
reported as a row error, never raised past the reader, so one import can list every bad row it
saw; a CSV row the csv module cannot parse ends the file there, reported the same way.

A Parquet file is compressed, so its size on disk says little about what its rows take once
decoded: its footer's row count and sizes are checked before any row is read, and the rows'
decoded size is counted batch by batch before they become Python objects.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tasks_app.families.base import RowError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

FORMATS = ("jsonl", "csv", "parquet")
MAX_LISTED_ERRORS = 100
"""Row errors listed in a rejection; the total count is always given."""
MAX_ROW_DEPTH = 64
"""Nesting levels of a JSONL row; deeper would exhaust the stack in the code that walks it."""
PARQUET_BATCH_ROWS = 4096
PARQUET_MAX_PATH_DEPTH = 64
"""Parts of a Parquet column path (``tests.list.element`` is 3): the schema's nesting."""
MIN_VALUE_BYTES = 8
"""What any decoded value costs at least: the pointer to it in its Python row or list."""

Record = dict[str, Any]
Reader = Callable[[str | Path], Iterator[tuple[int, "Record | RowError"]]]


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 512 * 1024 * 1024
    """The file as stored."""
    max_rows: int = 1_000_000
    max_decoded_bytes: int = 512 * 1024 * 1024
    """The rows once decompressed and decoded (Parquet); a text file's rows are its bytes."""


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


class MappingRejected(ImportRejected):
    """The mapping cannot work for this file: ``problems`` maps each mapping field (``prompt``)
    to why, so the answer is one error per field instead of the same error on every row."""

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = problems
        message = "; ".join(f"mapping.{field}: {reason}" for field, reason in problems.items())
        super().__init__([], 0, message)


class ImportLimitExceeded(ImportRejected):
    """The file is larger, or has more rows, than the limits allow."""

    def __init__(self, message: str) -> None:
        super().__init__([], 0, message)


class ImportUnreadable(ImportLimitExceeded):
    """The file is not in the format it was declared as, or is damaged."""


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
    readers: dict[str, Reader] = {
        "jsonl": _jsonl,
        "csv": _csv,
        "parquet": partial(_parquet, limits=limits),
    }
    reader = readers[detect_format(path, fmt)]
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
    except RecursionError:
        return _too_deep()
    if not isinstance(value, dict):
        return RowError("_row", f"must be a JSON object, got {type(value).__name__}")
    # Counting brackets is cheap; only a row that could be deep is walked.
    if line.count(b"[") + line.count(b"{") > MAX_ROW_DEPTH and _deeper_than(value, MAX_ROW_DEPTH):
        return _too_deep()
    return value


def _too_deep() -> RowError:
    return RowError("_row", f"is nested more than {MAX_ROW_DEPTH} levels deep")


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` objects/arrays, walked without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


class _Utf8Lines:
    """A file's lines for the csv module, split as ``newline=""`` splits them. A line of bad
    UTF-8 is passed on with replacement characters and noted, so the CSV row it belongs to is
    reported instead of the whole file failing."""

    def __init__(self, handle: Any) -> None:
        self._lines = iter(handle)
        self.number = 0
        """The last line handed out, 1-based."""
        self.bad_line: int | None = None

    def __iter__(self) -> _Utf8Lines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.number += 1
        if _UNDECODABLE.search(line) is None:
            return line
        self.bad_line = self.bad_line or self.number
        return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


# What the "surrogateescape" error handler turns each byte that is not UTF-8 into.
_UNDECODABLE = re.compile("[\udc80-\udcff]")


def _csv(path: str | Path) -> Iterator[tuple[int, Record | RowError]]:
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        lines = _Utf8Lines(handle)
        reader = csv.DictReader(lines)
        row = 0
        try:
            for row, record in enumerate(reader, start=1):
                yield row, _csv_record(record, lines)
        except csv.Error as exc:
            # The parser cannot find where the broken row ends, so nothing after it is read.
            yield row + 1, RowError("_row", _csv_problem(exc, lines.number))


def _csv_record(record: dict[Any, Any], lines: _Utf8Lines) -> Record | RowError:
    if lines.bad_line is not None:
        line, lines.bad_line = lines.bad_line, None
        return RowError("_row", f"is not valid UTF-8 (line {line})")
    if None in record:  # more cells than header columns
        return RowError("_row", f"has {len(record[None])} cell(s) beyond the header")
    return record


def _csv_problem(exc: csv.Error, line: int) -> str:
    if "field limit" in str(exc):
        limit = csv.field_size_limit()
        return f"has a field longer than {limit} characters, the CSV field limit (line {line})"
    return f"cannot be parsed as CSV: {exc} (line {line})"


def _parquet(path: str | Path, limits: Limits) -> Iterator[tuple[int, Record | RowError]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        plain = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise ImportUnreadable(f"not a Parquet file: {exc}") from exc
    check_parquet_footer(plain.metadata, limits)
    # Strings are read as dictionaries, so a value repeated a million times is counted before
    # it is expanded; a batch within the limits is then expanded to the file's own types.
    strings = [c.path for c in plain.schema if c.physical_type == "BYTE_ARRAY"]
    parquet = pq.ParquetFile(path, read_dictionary=strings)
    batches = parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS)
    row, decoded = 0, 0
    while (batch := _next_batch(batches, row)) is not None:
        decoded += sum(decoded_bytes(column) for column in batch.columns)
        if decoded > limits.max_decoded_bytes:
            raise ImportLimitExceeded(_decoded_too_large(decoded, limits, "more than "))
        if row + batch.num_rows > limits.max_rows:
            raise ImportLimitExceeded(f"the file has more than {limits.max_rows} rows")
        for record in batch.cast(plain.schema_arrow).to_pylist():
            row += 1
            yield row, record


def _next_batch(batches: Iterator[pa.RecordBatch], row: int) -> pa.RecordBatch | None:
    import pyarrow as pa

    try:
        return next(batches, None)
    except (pa.ArrowException, OSError) as exc:
        raise ImportUnreadable(f"the Parquet file is damaged after row {row}: {exc}") from exc


def check_parquet_footer(meta: pq.FileMetaData, limits: Limits) -> None:
    """Refuse from the footer alone: too many rows, too deep, or too large once decoded."""
    if meta.num_rows > limits.max_rows:
        raise ImportLimitExceeded(
            f"the file has {meta.num_rows} rows; the limit is {limits.max_rows}"
        )
    depth = max((len(c.path.split(".")) for c in meta.schema), default=0)
    if depth > PARQUET_MAX_PATH_DEPTH:
        raise ImportLimitExceeded(f"the file nests columns more than {PARQUET_MAX_PATH_DEPTH} deep")
    decoded = _footer_decoded_bytes(meta)
    if decoded > limits.max_decoded_bytes:
        raise ImportLimitExceeded(_decoded_too_large(decoded, limits, "at least "))


def _footer_decoded_bytes(meta: pq.FileMetaData) -> int:
    """A lower bound on the rows' decoded size: the pages once decompressed, and no less than
    ``MIN_VALUE_BYTES`` (or a fixed-width column's width) per value, which catches a value
    repeated millions of times in a few bytes of run-length encoding."""
    pages, values = 0, 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            width = meta.schema.column(c).length or 0
            pages += chunk.total_uncompressed_size
            values += chunk.num_values * max(MIN_VALUE_BYTES, width)
    return max(pages, values)


def decoded_bytes(array: pa.Array) -> int:
    """What ``array`` takes with its dictionaries expanded, computed without expanding them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if pa.types.is_dictionary(kind):
        if _is_bytes(kind.value_type):
            lengths = pc.binary_length(array.dictionary).take(array.indices)
            return int(pc.sum(lengths).as_py() or 0) + MIN_VALUE_BYTES * len(array)
        return decoded_bytes(array.dictionary.take(array.indices))  # fixed-width values
    if pa.types.is_map(kind):  # as the list of (key, value) entries it is
        entries = pa.struct([("key", kind.key_type), ("value", kind.item_type)])
        return decoded_bytes(array.cast(pa.list_(entries)))
    if pa.types.is_struct(kind):
        return sum(decoded_bytes(array.field(i)) for i in range(kind.num_fields))
    if isinstance(array, (pa.ListArray, pa.LargeListArray, pa.FixedSizeListArray)):
        return MIN_VALUE_BYTES * len(array) + decoded_bytes(array.flatten())
    return int(array.nbytes)


def _is_bytes(kind: pa.DataType) -> bool:
    import pyarrow as pa

    checks = (pa.types.is_binary, pa.types.is_large_binary, pa.types.is_string)
    return any(check(kind) for check in (*checks, pa.types.is_large_string))


def _decoded_too_large(size: int, limits: Limits, qualifier: str) -> str:
    return (
        f"the file's rows take {qualifier}{_mb(size)} once decoded; "
        f"the limit is {_mb(limits.max_decoded_bytes)}"
    )


def header_columns(
    path: str | Path, fmt: str | None = None, limits: Limits | None = None
) -> list[str] | None:
    """The columns a CSV header or a Parquet schema declares; None for JSONL, whose rows each
    carry their own keys."""
    limits = limits or Limits()
    check_size(path, limits)
    fmt = detect_format(path, fmt)
    if fmt == "csv":
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            try:
                return next(csv.reader(handle), [])
            except csv.Error as exc:
                raise ImportUnreadable(f"the CSV header cannot be parsed: {exc}") from exc
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            meta = pq.ParquetFile(path)
        except (pa.ArrowException, OSError) as exc:
            raise ImportUnreadable(f"not a Parquet file: {exc}") from exc
        check_parquet_footer(meta.metadata, limits)
        return list(meta.schema_arrow.names)
    return None


INSPECT_ROWS = 10_000
"""Rows an inspection reads: enough to see a JSONL file's keys and a column's labels."""
INSPECT_SAMPLE_ROWS = 3
INSPECT_VALUE_CHARS = 200
MAX_LABELS = 20
"""Distinct short texts a column may hold and still be offered as labels (a difficulty)."""
MAX_LABEL_CHARS = 40


@dataclass(frozen=True)
class FileSummary:
    """What an upload holds, read before anything is imported: the form maps from it."""

    format: str
    columns: list[str]
    rows_read: int
    """Rows read to find the columns and labels (at most ``INSPECT_ROWS``)."""
    sample: list[dict[str, Any]]
    """The first rows, long values cut to ``INSPECT_VALUE_CHARS``."""
    labels: dict[str, list[str]]
    """Columns that hold a few short texts that are not numbers (a difficulty such as
    "easy" / "hard"), with those texts in first-seen order."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def inspect_file(
    path: str | Path, fmt: str | None = None, limits: Limits | None = None
) -> FileSummary:
    """The file's columns (its header, else every key of its first rows), first rows, labels."""
    fmt = detect_format(path, fmt)
    columns: dict[str, None] = dict.fromkeys(header_columns(path, fmt, limits) or [])
    texts: dict[str, dict[str, None] | None] = {}
    sample: list[dict[str, Any]] = []
    rows_read = 0
    for _, record in iter_records(path, fmt, limits):
        if rows_read >= INSPECT_ROWS:
            break
        rows_read += 1
        if isinstance(record, RowError):
            continue
        columns.update(dict.fromkeys(record))
        if len(sample) < INSPECT_SAMPLE_ROWS:
            sample.append({k: _shortened(v) for k, v in record.items()})
        _collect_labels(record, texts)
    labels = {c: list(found) for c, found in texts.items() if found}
    return FileSummary(fmt, list(columns), rows_read, sample, labels)


def _shortened(value: Any) -> Any:
    if isinstance(value, str) and len(value) > INSPECT_VALUE_CHARS:
        return value[:INSPECT_VALUE_CHARS] + "…"
    if isinstance(value, (dict, list)):
        return _shortened(json.dumps(value, default=str))
    return value


def _collect_labels(record: Record, texts: dict[str, dict[str, None] | None]) -> None:
    """Track each column's distinct short texts; a column past ``MAX_LABELS`` is dropped."""
    for column, value in record.items():
        found = texts.setdefault(column, {})
        if found is None or not isinstance(value, str) or not value.strip():
            continue
        text = value.strip()
        if len(text) > MAX_LABEL_CHARS or text in found:
            if len(text) > MAX_LABEL_CHARS:
                texts[column] = None
            continue
        try:
            float(text)
        except ValueError:
            found[text] = None
            if len(found) > MAX_LABELS:
                texts[column] = None


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
