"""The file list of a checkpoint upload, checked before a byte is written (pure: no Django).

An outside run uploads a Hugging Face model directory: it declares every file (its path, its
size, its SHA-256) up front, then sends each in chunks. A declared path is a relative POSIX
path of plain names (letters, digits, ``. _ -``), never absolute, never ``..`` or ``.``, at
most ``MAX_DEPTH`` levels; two paths that differ only in case are refused (they would be one
file on some disks). Weights come as safetensors: pickled files (``.bin``, ``.pt``...) run
code when loaded, so they are refused, as is anything past the size and count limits.
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
    missing = [name for name in REQUIRED if name not in {f.path for f in files}]
    if missing:
        return [], [("files", f"a model directory has {', '.join(missing)}")]
    return files, []


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
