"""The trusted-side reference: HumanEval verified by the sandbox as it was before test code
was isolated (the tests ran in the keeper itself, only the candidate in a sandboxed unit).

That revision's ``tasks_app/sandbox`` is taken from git history into a temporary tree and
run in a process of its own, so the bench measures both in one invocation, on the same
items and cores, alternating rounds with the other sides. Isolating test code was meant
to cost at most 15% of this figure.

:class:`TrustedSide` runs ``trusted_worker.py`` on that tree and asks it for timed passes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The last revision whose keeper ran the tests itself (the next one isolates them).
REVISION = "b5866785d57e596ba0b2b104b2493c7cb8207f4a"
ROOT = Path(__file__).resolve().parents[2]
PATHS = ("tasks_app/__init__.py", "tasks_app/sandbox")


class Unavailable(Exception):
    """The reference revision cannot be checked out here (no git, or a shallow clone)."""


class TrustedSide:
    """A process verifying with the reference revision's sandbox, one timed pass per call."""

    def __init__(self, items: Sequence[Any], timeout: float, warm_workers: int) -> None:
        self.tree = extract(REVISION)
        script = str(Path(__file__).resolve().parent / "trusted_worker.py")
        self.proc = subprocess.Popen(
            [sys.executable, script, self.tree],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.count = len(items)
        payload = [[item[0], item[1]] for item in items]
        self._ask({"items": payload, "timeout": timeout, "warm_workers": warm_workers})

    def __call__(self, items: Sequence[Any], workers: int, group: int = 1) -> Any:
        assert len(items) == self.count, "the reference verifies the items it was given"
        answer = self._ask({"workers": workers, "group": group})
        return [tuple(r) for r in answer["results"]], answer["wall"]

    def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the trusted-side reference process died")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)
        shutil.rmtree(self.tree, ignore_errors=True)


def extract(revision: str) -> str:
    """``PATHS`` at ``revision`` in a fresh temporary directory."""
    tree = tempfile.mkdtemp(prefix="trusted-side-")
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", revision, *PATHS],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        shutil.rmtree(tree, ignore_errors=True)
        raise Unavailable(f"git cannot archive {revision[:12]}: {exc}") from None
    with tempfile.TemporaryFile() as fh:
        fh.write(archive)
        fh.seek(0)
        with tarfile.open(fileobj=fh) as tar:
            tar.extractall(tree, filter="data")
    return tree
