"""Checkpoint uploads: an outside run sends a Hugging Face model directory, a file at a time
in chunks, and it becomes a ``Checkpoint`` like one a worker saved (evaluated, compared in
reports, promoted, registered and deployed the same way).

1. ``start``: the run declares the step and every file (path, size, SHA-256), checked by
   ``experiments.checkpoint_files``; declaring the same files again for the same step
   returns the open upload, so a trainer that restarts resumes it.
2. ``write_chunk``: the bytes of one file from an offset. The offset must be what the file
   holds on disk (``received``), so a chunk re-sent after a lost answer is refused with the
   offset to send from, never appended twice. Chunks of one upload are written one at a
   time (a lock on its row).
3. ``complete``: every file whole and matching its digest, the directory loads as a causal
   LM (config and tokenizer through ``from_pretrained``, no remote code), then it moves into
   the run's checkpoint folder (``<run>/checkpoints/step-NNNNNN/model``) in one rename.

A LoRA adapter directory (``adapter_config.json`` and ``adapter_model.safetensors``, as peft
saves it) becomes a checkpoint like a platform LoRA run's: its base is the catalogue model
that its config's ``base_model_name_or_path`` stands for (``checkpoint_files.match_base``),
else the run's ``base_model``; the config is rewritten to name that model's directory, the
base's tokenizer is copied beside it when the upload has none, and it must load on the base
(in a child process, as a full directory does) before it becomes the checkpoint.

The staging folder is ``<run>/uploads/<upload id>``; every path written is resolved inside it
and opened without following links, so nothing lands outside it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.exceptions import ValidationError

from crucible.accounts.services import record
from crucible.api.field_errors import field_errors

from .. import catalogue
from ..checkpoint_files import (
    ADAPTER_CONFIG,
    CHUNK_MAX_BYTES,
    adapter_config_problems,
    check_files,
    is_adapter,
    match_base,
)
from ..models import Checkpoint, CheckpointUpload, Run, RunState, UploadState
from . import live, outside_runs, run_hooks
from .recording import run_dir

logger = logging.getLogger(__name__)

HASH_CHUNK_BYTES = 1 << 20
LOAD_CHECK_SECONDS = 120
LOAD_CHECK = "import sys; from training.model_info import describe; describe(sys.argv[1])"
"""Config and tokenizer through ``from_pretrained`` (no remote code), weights' headers read."""
ADAPTER_CHECK = "import sys; from training.lora import check_adapter; check_adapter(sys.argv[1])"
"""The tokenizer, and the adapter loaded on its base with every weight's shape matching."""
BASE_TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json", "merges.txt",
    "special_tokens_map.json", "added_tokens.json", "chat_template.jinja", "chat_template.json",
)  # fmt: skip
"""What of its base an adapter uploaded without a tokenizer gets beside it."""


class UploadConflict(ValidationError):
    """A 409: the upload cannot take this (a chunk at the wrong offset, a step already
    saved, an upload not complete); the error names the field and what to do."""

    status_code = 409
    default_code = "upload_conflict"


def conflict(field: str, why: str) -> UploadConflict:
    return UploadConflict({field: [why]})


def staging(upload: CheckpointUpload) -> Path:
    return run_dir(upload.run) / "uploads" / str(upload.pk)


def final_dir(run: Run, step: int) -> Path:
    return run_dir(run) / "checkpoints" / f"step-{step:06d}"


@transaction.atomic
def start(user: AbstractBaseUser, run: Run, step: int, items: Any) -> tuple[CheckpointUpload, bool]:
    """The upload of ``run``'s checkpoint at ``step``, and whether it is new."""
    outside_runs.refuse_platform(run, "given uploaded checkpoints")
    files, problems = check_files(items, max_total_bytes=settings.CHECKPOINT_UPLOAD_MAX_BYTES)
    if problems:
        raise field_errors(problems)
    Run.objects.select_for_update().filter(pk=run.pk).first()  # one upload per step at a time
    if run.checkpoints.filter(step=step).exists():
        raise conflict("step", f"the run already has a checkpoint at step {step}")
    declared = [f.as_dict() for f in files]
    open_one = run.uploads.filter(step=step, state=UploadState.OPEN).first()
    if open_one is not None:
        if open_one.files != declared:
            why = f"upload {open_one.pk} of step {step} is open with other files: finish it"
            raise conflict("files", why)
        return open_one, False
    upload = CheckpointUpload.objects.create(
        run=run,
        step=step,
        files=declared,
        total_bytes=sum(f.size for f in files),
        created_by=user,
    )
    record(user, "checkpoint.upload_started", run, team=run.team, changes={"step": step})
    return upload, True


def received(upload: CheckpointUpload) -> dict[str, int]:
    """Bytes on disk of each declared file (0 before its first chunk)."""
    root = staging(upload)
    out = {}
    for item in upload.files:
        path = root / item["path"]
        out[item["path"]] = path.stat().st_size if path.is_file() and not path.is_symlink() else 0
    return out


def write_chunk(upload: CheckpointUpload, path: str, offset: int, data: bytes) -> int:
    """Append ``data`` to ``path`` at ``offset``; the bytes the file now holds."""
    declared = {item["path"]: item for item in upload.files}
    if path not in declared:
        raise field_errors([("path", f"{path[:80]!r} is not among the upload's files")])
    if len(data) > CHUNK_MAX_BYTES:
        raise field_errors([("body", f"a chunk is at most {CHUNK_MAX_BYTES} bytes")])
    with transaction.atomic():
        locked = CheckpointUpload.objects.select_for_update().get(pk=upload.pk)
        if locked.state != UploadState.OPEN:
            raise conflict("upload", f"the upload is {locked.state}: it takes no more chunks")
        target = _inside(staging(upload), path)
        have = target.stat().st_size if target.exists() else 0
        if offset != have:
            raise conflict("offset", f"{path} holds {have} bytes: send from offset {have}")
        if have + len(data) > declared[path]["size"]:
            size = declared[path]["size"]
            raise field_errors([("body", f"{path} was declared {size} bytes; this passes it")])
        _append(target, data)
        return have + len(data)


def _inside(root: Path, path: str) -> Path:
    """``root/path``, its folders made, refusing any link on the way (nothing may lead out)."""
    root.mkdir(parents=True, exist_ok=True)
    current = root
    for part in path.split("/")[:-1]:
        current = current / part
        if current.is_symlink():
            raise field_errors([("path", f"{path[:80]!r} leads through a link")])
        current.mkdir(exist_ok=True)
    target = current / path.split("/")[-1]
    if target.is_symlink() or not target.resolve().is_relative_to(root.resolve()):
        raise field_errors([("path", f"{path[:80]!r} leads outside the upload")])
    return target


def _append(target: Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(target, flags, 0o640)
    with os.fdopen(descriptor, "ab") as out:
        out.write(data)


def complete(user: AbstractBaseUser, upload: CheckpointUpload) -> Checkpoint:
    """Check the whole directory and make it the run's checkpoint at its step."""
    with transaction.atomic():
        upload = CheckpointUpload.objects.select_for_update().select_related("run").get(
            pk=upload.pk
        )
        if upload.state == UploadState.COMPLETE and upload.checkpoint is not None:
            return upload.checkpoint  # a retried request
        _check_whole(upload)
        root = staging(upload)
        if is_adapter(upload.files):
            sent = (root / ADAPTER_CONFIG).read_bytes()
            try:
                base = _adopt_base(upload.run, root)
                _check_in_child(root, ADAPTER_CHECK, "the adapter does not load on its base")
            except BaseException:
                (root / ADAPTER_CONFIG).write_bytes(sent)  # as sent: its digest still holds
                raise
            _name_base(upload.run, base)
        else:
            _check_loads(root)
        target = final_dir(upload.run, upload.step)
        if target.exists():
            raise conflict("step", f"the run already has a checkpoint at step {upload.step}")
        target.mkdir(parents=True)
        os.replace(root, target / "model")
        checkpoint = Checkpoint.objects.create(
            run=upload.run,
            step=upload.step,
            path=str(target),
            metrics=_metrics_at(upload.run, upload.step),
            size_bytes=upload.total_bytes,
        )
        upload.state, upload.checkpoint = UploadState.COMPLETE, checkpoint
        upload.save(update_fields=["state", "checkpoint"])
        record(user, "checkpoint.uploaded", upload.run, team=upload.run.team,
               changes={"step": upload.step, "bytes": upload.total_bytes})  # fmt: skip
    logger.info("checkpoint.uploaded", extra={"run_id": upload.run_id, "step": upload.step})
    transaction.on_commit(lambda: live.run_changed(upload.run))
    if upload.run.state == RunState.SUCCEEDED:
        # The trainer finished the run before uploading: what follows a run's success (its
        # experiment's final evaluation) now has its final checkpoint.
        transaction.on_commit(lambda: run_hooks.run_succeeded(upload.run))
    return checkpoint


def _check_whole(upload: CheckpointUpload) -> None:
    have = received(upload)
    short = [f"{i['path']} ({have[i['path']]} of {i['size']} bytes)"
             for i in upload.files if have[i["path"]] != i["size"]]  # fmt: skip
    if short:
        raise conflict("files", f"not every file has arrived: {', '.join(short[:10])}")
    root = staging(upload)
    if not root.exists():
        root.mkdir(parents=True)  # a directory of empty files only
    wrong = [i["path"] for i in upload.files if _sha256(root / i["path"]) != i["sha256"]]
    if wrong:
        for path in wrong:  # send them again from offset 0
            (root / path).unlink()
        raise conflict("files", f"these files do not match their sha256 and were dropped: "
                       f"{', '.join(wrong[:10])}; send them again")  # fmt: skip


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()  # a file declared empty that no chunk created
    with path.open("rb") as file:
        for block in iter(lambda: file.read(HASH_CHUNK_BYTES), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_loads(root: Path) -> None:
    if not catalogue.is_model_dir(root):
        why = "not a causal language model directory: it needs config.json for a causal LM and "
        raise field_errors([("files", why + "a tokenizer")])
    if not any(root.glob("*.safetensors")):
        raise field_errors([("files", "no weights: a model directory has *.safetensors files")])
    _check_in_child(root, LOAD_CHECK, "the directory does not load")


def _check_in_child(root: Path, script: str, failed: str) -> None:
    # In a child process, time-limited and given no secrets: the files are the caller's, and
    # a hostile tokenizer or config must not stall or bloat the web process.
    command = [sys.executable, "-c", script, str(root)]
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(settings.BASE_DIR),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HOME": str(root),
           "CRUCIBLE_MODELS_DIR": str(settings.MODELS_DIR)}  # fmt: skip
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=LOAD_CHECK_SECONDS, env=env,
            cwd=settings.BASE_DIR, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        why = f"the directory took over {LOAD_CHECK_SECONDS} s to load"
        raise field_errors([("files", why)]) from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["it could not be read"])[-1]
        raise field_errors([("files", f"{failed}: {last[:300]}")])


def _adopt_base(run: Run, root: Path) -> str:
    """The catalogue name of the adapter's base; its config rewritten to name the base by
    that name (resolved in the models folder on load, ``training.lora.base_path``), and the
    base's tokenizer copied in when it brought none."""
    path = root / ADAPTER_CONFIG
    try:
        config = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise field_errors([(ADAPTER_CONFIG, f"not JSON: {str(exc)[:120]}")]) from exc
    problems = adapter_config_problems(config)
    if problems:
        raise field_errors(problems)
    models_dir = Path(settings.MODELS_DIR)
    names = {entry.name for entry in catalogue.catalogue(models_dir)}
    named = config.get("base_model_name_or_path")
    base = match_base(named, names) or match_base(run.base_model, names)
    if base is None:
        said = f"{ADAPTER_CONFIG} names {str(named)[:80]!r} and the run {run.base_model[:80]!r}"
        why = f"{said}: neither is a model of the catalogue ({', '.join(sorted(names))})"
        raise field_errors([("base_model", why)])
    try:
        base_dir = catalogue.resolve(base, models_dir)
    except catalogue.UnknownModel as exc:
        raise field_errors([("base_model", str(exc))]) from exc
    config["base_model_name_or_path"] = base
    path.write_text(json.dumps(config, indent=2))
    if not any((root / name).is_file() for name in catalogue.TOKENIZER_FILES):
        for name in BASE_TOKENIZER_FILES:
            if (base_dir / name).is_file():
                shutil.copyfile(base_dir / name, root / name)
    return base


def _name_base(run: Run, base: str) -> None:
    """An outside run that named no base model takes its adapter's: its configuration of
    record (the chat template its reports and exports read) is then that model's."""
    if not run.base_model:
        Run.objects.filter(pk=run.pk, base_model="").update(base_model=base)
        run.base_model = base


def _metrics_at(run: Run, step: int) -> dict[str, float | None]:
    rows = run.metrics.filter(step=step).values_list("key", "value")
    return dict(rows)


def discard(upload: CheckpointUpload) -> None:
    """Forget an open upload and its bytes."""
    shutil.rmtree(staging(upload), ignore_errors=True)
    upload.delete()
