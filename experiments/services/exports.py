"""A checkpoint exported as a Hugging Face model directory, with its lineage in the model card.

The platform's part is the lineage: the run, the experiment, the pool and verifier versions
(as the registry freezes them, `registry.lineage_of`), the verdicts of the reports made on
the checkpoint's evaluations, its promotion, and the format its prompts were trained in. `training.export` writes the directory.
`zip_stream` hands a written directory out as a zip, chunk by chunk, for a download.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rest_framework.exceptions import ValidationError

from training.export import export_checkpoint
from training.lora import is_adapter_dir

from ..models import Checkpoint, EvaluationReport
from . import registry, reports

CHUNK_BYTES = 1 << 20
"""Bytes read from a file per zip chunk: memory stays flat whatever the weights' size."""


class ExportRefused(ValidationError):
    """A 409 naming the field at fault: this checkpoint cannot be exported as asked."""

    status_code = 409
    default_code = "export_refused"


def lineage(checkpoint: Checkpoint) -> dict[str, Any]:
    """Where the checkpoint came from and what was decided about it, as plain data."""
    run = checkpoint.run
    return {
        "title": f"{run.title}, run {run.number}, step {checkpoint.step}",
        **registry.lineage_of(checkpoint),
        "reports": [_verdict(report) for report in _reports(checkpoint)],
        # How its prompts were written (template, system prompt, each family's prompt
        # template): what a user of the export must reproduce to get what it was trained on.
        "format": registry.training_format(run.team, run.config_of_record).to_dict(),
    }


def _reports(checkpoint: Checkpoint) -> list[EvaluationReport]:
    """Reports whose candidate is one of the checkpoint's evaluations, oldest first."""
    return list(
        EvaluationReport.objects.filter(candidate__checkpoint=checkpoint).order_by("created_at")
    )


def _verdict(report: EvaluationReport) -> dict[str, Any]:
    return {
        "id": report.pk,
        "version": report.version,
        "state": report.state,
        "headline": report.headline,
        "regressed_families": reports.regressed_families(report),
    }


def export(
    checkpoint: Checkpoint, out: str | Path, *, adapter_only: bool = False, dtype: str = "auto"
) -> Path:
    """Write `checkpoint` to the directory `out` (empty or absent); `ExportRefused` says why not."""
    model_dir = Path(checkpoint.path) / "model"
    if not model_dir.is_dir():
        raise ExportRefused({"checkpoint": [f"checkpoint {checkpoint.pk} is no longer on disk"]})
    if adapter_only and not is_adapter_dir(model_dir):
        why = f"checkpoint {checkpoint.pk} holds full weights, not a LoRA adapter"
        raise ExportRefused({"adapter_only": [why]})
    target = Path(out)
    if target.exists() and any(target.iterdir()):
        raise ExportRefused({"out": [f"{target} is not empty"]})
    return export_checkpoint(
        checkpoint.path, target, lineage=lineage(checkpoint), adapter_only=adapter_only, dtype=dtype
    )


def export_to_temporary(
    checkpoint: Checkpoint, *, adapter_only: bool = False, dtype: str = "auto"
) -> Path:
    """The export in a new temporary directory, which the caller removes (`zip_stream` does)."""
    scratch = Path(tempfile.mkdtemp(prefix=f"checkpoint-{checkpoint.pk}-export-"))
    try:
        return export(checkpoint, scratch / "model", adapter_only=adapter_only, dtype=dtype)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def archive_name(checkpoint: Checkpoint, adapter_only: bool) -> str:
    run = checkpoint.run
    kind = "adapter" if adapter_only else "model"
    return f"run-{run.pk}-step-{checkpoint.step:06d}-{kind}.zip"


def zip_stream(directory: Path, *, remove: bool = False) -> Iterator[bytes]:
    """`directory`'s files as one zip (stored, not deflated: weights do not compress), chunk
    by chunk; with `remove`, the directory's temporary parent is deleted once it is sent."""
    sink = _Chunks()
    try:
        with zipfile.ZipFile(sink, "w", zipfile.ZIP_STORED) as archive:
            for path in sorted(p for p in directory.rglob("*") if p.is_file()):
                name = path.relative_to(directory).as_posix()
                with path.open("rb") as src, archive.open(name, "w", force_zip64=True) as dst:
                    while chunk := src.read(CHUNK_BYTES):
                        dst.write(chunk)
                        yield sink.take()
        yield sink.take()
    finally:
        if remove:
            shutil.rmtree(directory.parent, ignore_errors=True)


class _Chunks(io.RawIOBase):
    """An unseekable sink zipfile writes into (it then writes data descriptors), emptied by
    `take` after each piece."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        piece = bytes(data)
        self.parts.append(piece)
        return len(piece)

    def take(self) -> bytes:
        out, self.parts = b"".join(self.parts), []
        return out
