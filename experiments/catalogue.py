"""What models this machine can load: the built-in tiny model and Hugging Face directories.

Pure Python (no Django): the worker lists the catalogue with its heartbeat, and a job turns
the name a user picked back into a directory with ``resolve``. Everything lives under one
models folder (the ``MODELS_DIR`` setting):

- ``tiny-digit-sort``: built in. A tiny Llama-style model warm-started on digit sorting
  (``training.demo``), so a run on the demo family visibly learns on a CPU in minutes. It is
  built on first use, once per machine, into ``<models folder>/tiny-digit-sort``.
- every Hugging Face causal-LM directory (``config.json`` plus tokenizer files) below the
  folder, named by its path relative to it (``Qwen2.5-0.5B-Instruct``, ``org/model``).

A name is refused with ``UnknownModel`` (a ``ValueError`` that says what is available) before
any library sees it, so a typo never surfaces as a transformers traceback.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from training.budget import shape_of
from training.model_info import describe

TINY_MODEL = "tiny-digit-sort"
TINY_SFT_STEPS = 600
"""SFT steps of the tiny model's warm start: the demo's (``training.demo.DemoSettings``), after
which a short GRPO run on digit sorting lifts held-out success visibly."""
SCAN_DEPTH = 2
"""Folder levels searched for model directories: ``name`` and ``org/name`` (the hub's layout)."""
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")
CAUSAL_LM_SUFFIXES = ("ForCausalLM", "LMHeadModel")
SAFETENSORS_HEADER_MAX_BYTES = 100 * 1024 * 1024
"""A header larger than this is not a real safetensors file: its parameters stay unknown."""
_STAGING_SUFFIX = ".partial"
DESCRIBED = ("architecture", "dtype", "context_length", "chat_template")
"""What the model page shows of ``training.model_info.describe`` beside the parameter count."""


class UnknownModel(ValueError):
    """The name is not a model in the catalogue (or points outside the models folder)."""


@dataclass(frozen=True)
class ModelEntry:
    name: str
    """What a run or a job names: ``tiny-digit-sort`` or the directory relative to the folder."""
    path: Path
    """The directory on this machine."""
    builtin: bool
    parameters: int | None
    """Parameter count, when the weights' headers or config.json tell it cheaply."""
    ready: bool
    """False for the built-in model until its first use has built it."""
    shape: dict[str, int] | None = None
    """Sizes from config.json that a step's memory depends on (``training.budget.shape_of``),
    so a launch can be sized before any worker loads the model; None when unknown."""
    info: dict[str, Any] | None = None
    """``DESCRIBED`` keys of ``training.model_info.describe``: its architecture, stored dtype,
    context length and whether its tokenizer has a chat template; None when unknown."""

    def to_dict(self) -> dict[str, Any]:
        """JSON for the heartbeat and the API: the path relative to the models folder only."""
        return {
            "name": self.name,
            "path": self.name,
            "builtin": self.builtin,
            "parameters": self.parameters,
            "ready": self.ready,
            "shape": self.shape,
            **{key: (self.info or {}).get(key) for key in DESCRIBED},
        }


def catalogue(models_dir: Path) -> list[ModelEntry]:
    """The built-in tiny model first, then every model directory under ``models_dir``."""
    return [tiny_entry(models_dir), *scan(models_dir)]


def tiny_entry(models_dir: Path) -> ModelEntry:
    path = models_dir / TINY_MODEL
    ready = is_model_dir(path)
    if not ready:
        return ModelEntry(TINY_MODEL, path, True, None, False)
    return ModelEntry(
        TINY_MODEL, path, True, parameter_count(path), True, model_shape(path), model_info(path)
    )


def scan(models_dir: Path) -> list[ModelEntry]:
    """Hugging Face causal-LM directories up to ``SCAN_DEPTH`` levels down, sorted by name."""
    found = [
        ModelEntry(
            name, path, False, parameter_count(path), True, model_shape(path), model_info(path)
        )
        for name, path in _model_dirs(models_dir, models_dir, SCAN_DEPTH)
        if name != TINY_MODEL
    ]
    return sorted(found, key=lambda entry: entry.name)


def _model_dirs(root: Path, folder: Path, depth: int) -> Iterator[tuple[str, Path]]:
    try:
        children = sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:  # a missing or unreadable folder lists nothing
        return
    for child in children:
        if child.name.startswith(".") or child.name.endswith(_STAGING_SUFFIX):
            continue
        if is_model_dir(child):
            yield child.relative_to(root).as_posix(), child
        elif depth > 1:
            yield from _model_dirs(root, child, depth - 1)


def is_model_dir(path: Path) -> bool:
    """A causal LM that ``from_pretrained`` can load: config.json and a tokenizer beside it."""
    config = _read_config(path)
    if config is None or not any((path / name).is_file() for name in TOKENIZER_FILES):
        return False
    architectures = config.get("architectures") or []
    # A config without architectures does not say; from_pretrained decides at load time.
    return not architectures or any(str(a).endswith(CAUSAL_LM_SUFFIXES) for a in architectures)


def model_info(path: Path) -> dict[str, Any] | None:
    """``DESCRIBED`` of the model directory ``path``, read once per version of its config and
    tokenizer (a heartbeat lists the catalogue every few seconds)."""
    try:
        stamp = tuple((path / n).stat().st_mtime_ns for n in ("config.json", *TOKENIZER_FILES)
                      if (path / n).is_file())  # fmt: skip
    except OSError:
        return None
    return _described(path, stamp)


@lru_cache(maxsize=256)
def _described(path: Path, stamp: tuple[int, ...]) -> dict[str, Any] | None:
    try:
        info = describe(path)
    except Exception:  # noqa: BLE001 - a directory it cannot read (remote code, a broken
        return None  # tokenizer) is still listed, its details unknown
    return {key: info[key] for key in DESCRIBED}


def _read_config(path: Path) -> dict[str, Any] | None:
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError):
        return None
    return config if isinstance(config, dict) else None


def resolve(name: str, models_dir: Path, *, sft_steps: int = TINY_SFT_STEPS) -> Path:
    """The directory of model ``name``, building the built-in one on first use.

    Refuses, with ``UnknownModel``, a name that leaves the models folder (``..``, an absolute
    path elsewhere) or that names no model directory in it.
    """
    if not isinstance(name, str) or not name.strip():
        raise UnknownModel("a model name is required")
    name = name.strip()
    if name == TINY_MODEL:
        return ensure_tiny(models_dir, sft_steps)
    path = _inside(models_dir, name)
    if path == models_dir / TINY_MODEL:
        return ensure_tiny(models_dir, sft_steps)
    if not is_model_dir(path):
        known = ", ".join(entry.name for entry in catalogue(models_dir))
        raise UnknownModel(f"unknown model {name!r}; this machine can load: {known}")
    return path


def _inside(models_dir: Path, name: str) -> Path:
    """``models_dir / name``, checked lexically to stay inside the folder. Lexically, not by
    resolving links: a link an operator put in the folder is theirs to make, a ``..`` in a
    request is not."""
    root = Path(os.path.normpath(models_dir.absolute()))
    path = Path(os.path.normpath(root / name))
    if path == root or not path.is_relative_to(root):
        raise UnknownModel(f"{name!r} is outside the models folder; name a model it holds")
    return path


def ensure_tiny(models_dir: Path, sft_steps: int = TINY_SFT_STEPS) -> Path:
    """Build the warm-started tiny model once per machine; concurrent first users wait.

    The build runs under an exclusive file lock and writes into a staging directory renamed
    into place when complete, so no process ever loads a half-written model.
    """
    target = models_dir / TINY_MODEL
    if is_model_dir(target):
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    with _locked(models_dir / f".{TINY_MODEL}.lock"):
        if not is_model_dir(target):  # another process may have built it while we waited
            _build_tiny(target, sft_steps)
    return target


def _build_tiny(target: Path, sft_steps: int) -> None:
    from training.demo import cached_base  # torch and transformers load only when building

    staging = target.with_name(f"{target.name}{_STAGING_SUFFIX}")
    shutil.rmtree(staging, ignore_errors=True)
    cached_base(staging, sft_steps)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def model_shape(path: Path) -> dict[str, int] | None:
    config = _read_config(path)
    return shape_of(config) if config is not None else None


def parameter_count(path: Path) -> int | None:
    """From the safetensors headers (exact, a few kB read), else estimated from config.json."""
    counted = _safetensors_parameters(path)
    if counted is not None:
        return counted
    config = _read_config(path)
    return _estimated_parameters(config) if config is not None else None


def _safetensors_parameters(path: Path) -> int | None:
    index = path / "model.safetensors.index.json"
    try:
        if index.is_file():
            shards = set(json.loads(index.read_text())["weight_map"].values())
        else:
            shards = {"model.safetensors"} if (path / "model.safetensors").is_file() else set()
        counts = [_header_parameters(path / shard) for shard in sorted(shards)]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return sum(counts) if counts else None


def _header_parameters(file: Path) -> int:
    """Elements of every tensor in a safetensors file, read from its JSON header only."""
    with file.open("rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        if size > SAFETENSORS_HEADER_MAX_BYTES:
            raise ValueError("header too large")
        header = json.loads(handle.read(size))
    total = 0
    for key, tensor in header.items():
        if key != "__metadata__":
            total += _product(tensor["shape"])
    return total


def _product(shape: list[int]) -> int:
    result = 1
    for dim in shape:
        result *= int(dim)
    return result


def _estimated_parameters(config: dict[str, Any]) -> int | None:
    """A decoder-only transformer's size from the usual config.json fields (Llama, Qwen,
    Mistral): embeddings, attention with grouped KV heads, a gated MLP, norms. None when a
    field is missing: an unknown size is better than a wrong one."""
    try:
        vocab, hidden = int(config["vocab_size"]), int(config["hidden_size"])
        layers, inner = int(config["num_hidden_layers"]), int(config["intermediate_size"])
        heads = int(config["num_attention_heads"])
        kv_heads = int(config.get("num_key_value_heads") or heads)
    except (KeyError, TypeError, ValueError):
        return None
    head_dim = int(config.get("head_dim") or hidden // heads)
    attention = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2
    per_layer = attention + 3 * hidden * inner + 2 * hidden
    embeddings = vocab * hidden * (1 if config.get("tie_word_embeddings", True) else 2)
    return embeddings + layers * per_layer + hidden
