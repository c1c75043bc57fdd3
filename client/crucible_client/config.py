"""Where ``crucible login`` keeps the platform's address and token: ``~/.config/crucible/
config.json`` (``CRUCIBLE_CONFIG_DIR`` overrides the directory), readable by its owner only.
``CRUCIBLE_URL`` and ``CRUCIBLE_TOKEN`` in the environment win over the file."""

from __future__ import annotations

import json
import os
from pathlib import Path


def config_path() -> Path:
    directory = os.environ.get("CRUCIBLE_CONFIG_DIR")
    return Path(directory or Path.home() / ".config" / "crucible") / "config.json"


def save(url: str, token: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # Created with owner-only permissions before the token is written into it.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        json.dump({"url": url.rstrip("/"), "token": token}, out)
    return path


def load() -> tuple[str | None, str | None]:
    """(url, token): the environment's, else the saved ones, else None."""
    saved: dict[str, str] = {}
    path = config_path()
    if path.is_file():
        try:
            saved = json.loads(path.read_text())
        except ValueError:
            saved = {}
    url = os.environ.get("CRUCIBLE_URL") or saved.get("url")
    token = os.environ.get("CRUCIBLE_TOKEN") or saved.get("token")
    return url, token
