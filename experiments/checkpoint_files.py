"""The file list of a checkpoint upload, checked before a byte is written (pure: no Django).

An outside run uploads a Hugging Face model directory: it declares every file (its path, its
size, its SHA-256) up front, then sends each in chunks. A declared path is a relative POSIX
path of plain names (letters, digits, ``. _ -``), never absolute, never ``..`` or ``.``, at
most ``MAX_DEPTH`` levels; two paths that differ only in case are refused (they would be one
file on some disks). Weights come as safetensors: pickled files (``.bin``, ``.pt``...) run
code when loaded, so they are refused, as is anything past the size and count limits.

A directory with ``adapter_config.json`` is a LoRA adapter (``peft``'s ``save_pretrained``):
it needs its weights as ``adapter_model.safetensors`` instead of ``config.json``, and it
becomes a checkpoint on the catalogue model it names as its base.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_FILES = 200
MAX_DEPTH = 4
MAX_PATH_CHARS = 255
CHUNK_MAX_BYTES = 8 * 1024 * 1024
"""One PUT's body at most (under the platform's request-body limit)."""
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
SHA256 = re.compile(r"[0-9a-f]{64}")
PICKLED_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".h5", ".msgpack")
REQUIRED = ("config.json",)
ADAPTER_CONFIG = "adapter_config.json"
ADAPTER_REQUIRED = (ADAPTER_CONFIG, "adapter_model.safetensors")
ADAPTER_CONFIG_MAX_BYTES = 64 * 1024
"""An adapter's config is a few hundred bytes; this is read into memory before it is checked."""


@dataclass(frozen=True)
class DeclaredFile:
    path: str
    size: int
    sha256: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "sha256": self.sha256}


def path_problem(path: Any) -> str | None:
    """Why ``path`` cannot name a file of the directory; None when it can."""
    if not isinstance(path, str) or not path:
        return "a path is a non-empty string"
    if len(path) > MAX_PATH_CHARS:
        return f"a path is at most {MAX_PATH_CHARS} characters"
    parts = path.split("/")
    if len(parts) > MAX_DEPTH:
        return f"a path is at most {MAX_DEPTH} levels deep; got {path[:60]!r}"
    if any(not NAME.fullmatch(part) or part in (".", "..") for part in parts):
        return (
            "a path is relative, made of names of letters, digits and . _ - (not starting "
            f"with . or -); got {path[:60]!r}"
        )
    if path.lower().endswith(PICKLED_SUFFIXES):
        return f"{path[:60]!r} is a pickled file, which runs code when loaded: send safetensors"
    return None


def check_files(items: Any, *, max_total_bytes: int) -> tuple[list[DeclaredFile], list[tuple[str, str]]]:
    """The declared files, and ``(field, reason)`` problems (none: the list is good)."""
    if not isinstance(items, list) or not items:
        return [], [("files", "a non-empty list of {path, size, sha256}")]
    if len(items) > MAX_FILES:
        return [], [("files", f"at most {MAX_FILES} files; got {len(items)}")]
    files: list[DeclaredFile] = []
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        declared, why = _declared(item)
        if declared is None:
            problems.append((f"files[{index}]", why))
        elif declared.path.lower() in seen:
            problems.append((f"files[{index}].path", f"{declared.path!r} is declared twice"))
        else:
            seen.add(declared.path.lower())
            files.append(declared)
    if problems:
        return [], problems
    total = sum(f.size for f in files)
    if total > max_total_bytes:
        return [], [("files", f"{total} bytes in all; a checkpoint is at most {max_total_bytes}")]
    paths = {f.path for f in files}
    adapter = is_adapter(files)
    missing = [name for name in (ADAPTER_REQUIRED if adapter else REQUIRED) if name not in paths]
    if missing:
        what = "an adapter directory" if adapter else "a model directory"
        return [], [("files", f"{what} has {', '.join(missing)}")]
    config = next((f for f in files if f.path == ADAPTER_CONFIG), None)
    if config is not None and config.size > ADAPTER_CONFIG_MAX_BYTES:
        why = f"{ADAPTER_CONFIG} is at most {ADAPTER_CONFIG_MAX_BYTES} bytes; got {config.size}"
        return [], [("files", why)]
    return files, []


def is_adapter(files: list[DeclaredFile] | list[dict[str, Any]]) -> bool:
    """Whether the declared directory is a LoRA adapter (it has ``adapter_config.json``)."""
    paths = {f.path if isinstance(f, DeclaredFile) else f.get("path") for f in files}
    return ADAPTER_CONFIG in paths


def _declared(item: Any) -> tuple[DeclaredFile | None, str]:
    if not isinstance(item, dict) or set(item) != {"path", "size", "sha256"}:
        return None, "an object with path, size and sha256, nothing else"
    why = path_problem(item["path"])
    if why:
        return None, why
    size = item["size"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return None, "size is a whole number of bytes, 0 or more"
    digest = item["sha256"]
    if not isinstance(digest, str) or not SHA256.fullmatch(digest):
        return None, "sha256 is 64 lowercase hexadecimal digits"
    return DeclaredFile(item["path"], size, digest), ""


def adapter_config_problems(config: Any) -> list[tuple[str, str]]:
    """``(field, reason)`` for an ``adapter_config.json`` the platform cannot take: a LoRA
    adapter of a causal LM, whose base (if named) is a string."""
    where = ADAPTER_CONFIG
    if not isinstance(config, dict):
        return [(where, "a JSON object, as peft's save_pretrained writes it")]
    problems = []
    if config.get("peft_type") != "LORA":
        why = f"only LoRA adapters are taken; got {str(config.get('peft_type'))[:40]!r}"
        problems.append((f"{where}.peft_type", why))
    if config.get("task_type") not in (None, "CAUSAL_LM"):
        why = f"an adapter of a causal LM (CAUSAL_LM); got {str(config.get('task_type'))[:40]!r}"
        problems.append((f"{where}.task_type", why))
    base = config.get("base_model_name_or_path")
    if base is not None and not isinstance(base, str):
        problems.append((f"{where}.base_model_name_or_path", "a model name or path, or null"))
    return problems


def match_base(named: Any, names: set[str]) -> str | None:
    """The catalogue name among ``names`` that ``named`` (a catalogue name, a hub id such as
    ``org/model``, or the path the trainer had it at) stands for: the name itself, else its
    last two parts, else its last part; None when none is in the catalogue. A name only
    chooses the base; the adapter's weights are then loaded on it, so a same-named model of
    another shape is still refused."""
    if not isinstance(named, str) or not named.strip():
        return None
    clean = named.strip().rstrip("/")
    parts = clean.split("/")
    for candidate in (clean, "/".join(parts[-2:]), parts[-1]):
        if candidate in names:
            return candidate
    return None
