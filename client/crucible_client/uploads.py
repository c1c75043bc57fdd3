"""Uploading a Hugging Face model directory as an outside run's checkpoint, in chunks and
resumable: the server says how many bytes each file holds, and sending goes on from there, so
an upload cut off (a network error, the script killed) continues where it stopped when the
same directory is uploaded again at the same step.

A directory with ``adapter_config.json`` (peft's ``save_pretrained``, a TRL run with a
``peft_config``) is a LoRA adapter: only the adapter's config and safetensors weights and
the tokenizer files go (a trainer's output folder also holds ``training_args.bin`` and other
pickles, which the platform refuses), and the platform puts it on the catalogue model its
config names as its base (or the run's ``base_model``)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, cast

from tqdm import tqdm

from crucible_client import schema_types as t
from crucible_client.http import API, ApiError, Http

CHUNK_BYTES = 8 * 1024 * 1024
"""The endpoint's largest chunk."""
COMPLETE_TIMEOUT_S = 1800.0
ADAPTER_CONFIG = "adapter_config.json"
ADAPTER_FILES = (
    ADAPTER_CONFIG, "adapter_model.safetensors", "tokenizer.json", "tokenizer_config.json",
    "tokenizer.model", "vocab.json", "merges.txt", "special_tokens_map.json",
    "added_tokens.json", "chat_template.jinja", "chat_template.json",
)  # fmt: skip
"""The files of an adapter upload: the adapter, and the tokenizer if it was saved beside it."""


def is_adapter_dir(directory: Path | str) -> bool:
    return (Path(directory) / ADAPTER_CONFIG).is_file()


def describe(directory: Path, *, adapter: bool = False) -> list[dict[str, Any]]:
    """Every file below ``directory`` as ``{path, size, sha256}``, paths relative, POSIX
    (with ``adapter``, the ``ADAPTER_FILES`` at its top only)."""
    files = []
    chosen = (
        [directory / name for name in ADAPTER_FILES]
        if adapter
        else [p for p in directory.rglob("*")]
    )
    for path in sorted(p for p in chosen if p.is_file()):
        digest = hashlib.sha256()
        with open(path, "rb") as source:
            for block in iter(lambda: source.read(1 << 20), b""):
                digest.update(block)
        relative = path.relative_to(directory).as_posix()
        files.append({"path": relative, "size": path.stat().st_size, "sha256": digest.hexdigest()})
    return files


def upload_checkpoint(
    http: Http,
    run_id: int,
    directory: Path | str,
    step: int,
    *,
    chunk_bytes: int = CHUNK_BYTES,
    progress: bool = True,
    adapter: bool | None = None,
) -> t.Checkpoint:
    """Upload ``directory`` as the run's checkpoint at ``step`` and return the checkpoint.

    ``adapter``: None finds out (a directory with ``adapter_config.json`` is an adapter);
    True insists, and a directory without that file is refused here with ``ValueError``."""
    directory = Path(directory)
    if adapter is None:
        adapter = is_adapter_dir(directory)
    elif adapter and not is_adapter_dir(directory):
        raise ValueError(f"{directory} has no {ADAPTER_CONFIG}: it is not a LoRA adapter")
    files = describe(directory, adapter=adapter)
    start = {"step": step, "files": files}
    upload = cast(t.Upload, http.post(f"{API}/runs/{int(run_id)}/checkpoint-uploads/", start))
    where = f"{API}/checkpoint-uploads/{upload['id']}/"
    received = {f["path"]: f["received"] for f in upload["files"]}
    total = sum(f["size"] for f in files)
    with tqdm(
        total=total, initial=sum(received.values()), unit="B", unit_scale=True,
        disable=not progress, desc=f"checkpoint of run {run_id}",
    ) as bar:  # fmt: skip
        for file in files:
            send_file(http, where, directory / file["path"], file, received[file["path"]], chunk_bytes, bar)
    # Completing checks every digest and loads the model: minutes for a large one.
    completed = http.json("POST", f"{where}complete/", timeout_s=COMPLETE_TIMEOUT_S)
    return cast(t.Checkpoint, completed)


def send_file(
    http: Http,
    where: str,
    path: Path,
    file: dict[str, Any],
    offset: int,
    chunk_bytes: int,
    bar: tqdm,
) -> None:
    with open(path, "rb") as source:
        while offset < file["size"]:
            source.seek(offset)
            chunk = source.read(chunk_bytes)
            try:
                answer = http.json(
                    "PUT", f"{where}files/", params={"path": file["path"], "offset": offset},
                    data=chunk, headers={"Content-Type": "application/octet-stream"},
                )  # fmt: skip
            except ApiError as error:
                if error.status != 409:
                    raise
                # Another sender got further (or less far): go on from what the server holds.
                upload = http.get(where)
                answer = next(f for f in upload["files"] if f["path"] == file["path"])
            bar.update(answer["received"] - offset)
            offset = answer["received"]
