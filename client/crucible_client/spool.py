"""A disk queue of metric batches that could not reach the platform yet.

Standard library only, so a training script's callback can spill into it without the rest of
the client. Each batch is one JSON file ``{"url", "run_id", "points"}`` (never the token),
written atomically (a temporary file renamed into place), so a crash mid-write leaves no torn
batch. Files sort by creation time: batches go out in the order they were logged. Sending a
batch twice is harmless, since the ingest endpoint identifies a point by its key and step.

The directory is ``CRUCIBLE_SPOOL_DIR``, else ``~/.cache/crucible/spool``. A batch the server
refuses for good (a 4xx: a finished run, a revoked token) moves to ``refused/`` with the
server's reasons, for a person to read; it is never retried.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger("crucible_client.spool")

MAX_WAIT_S = 30.0


class SendLater(Exception):
    """The platform is unreachable or answered a retryable status: keep the batch."""


class Refused(Exception):
    """The platform refused the batch for good: sending it again cannot help."""


@dataclass(frozen=True)
class Batch:
    path: Path
    url: str
    run_id: int
    points: list[dict[str, Any]]


@dataclass(frozen=True)
class DrainReport:
    sent: int
    refused: int
    left: int


Sender = Callable[[Batch], None]
"""Sends one batch; raises ``SendLater`` to stop the drain or ``Refused`` to set it aside."""


def default_dir() -> Path:
    configured = os.environ.get("CRUCIBLE_SPOOL_DIR")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "crucible" / "spool"


class Spool:
    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()

    def put(self, url: str, run_id: int, points: list[dict[str, Any]]) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{int(run_id)}-{uuid.uuid4().hex[:8]}.json"
        final = self.directory / name
        temporary = self.directory / f".{name}.tmp"
        body = {"url": url.rstrip("/"), "run_id": int(run_id), "points": points}
        temporary.write_text(json.dumps(body))
        os.replace(temporary, final)
        return final

    def batches(self, url: str | None = None, run_id: int | None = None) -> list[Batch]:
        """Pending batches, oldest first; those of ``url`` and ``run_id`` when given."""
        if not self.directory.is_dir():
            return []
        found = []
        for path in sorted(self.directory.glob("*.json")):
            try:
                body = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # taken by another drain meanwhile, or not ours
            batch = Batch(path, body["url"], int(body["run_id"]), body["points"])
            if url is not None and batch.url != url.rstrip("/"):
                continue
            if run_id is not None and batch.run_id != int(run_id):
                continue
            found.append(batch)
        return found

    def pending(self, url: str | None = None, run_id: int | None = None) -> int:
        return sum(len(batch.points) for batch in self.batches(url, run_id))

    def drain(self, send: Sender, url: str | None = None, run_id: int | None = None) -> DrainReport:
        """Send pending batches in order until one must wait; what is left stays on disk."""
        sent = refused = 0
        batches = self.batches(url, run_id)
        for index, batch in enumerate(batches):
            try:
                send(batch)
            except SendLater:
                return DrainReport(sent, refused, sum(len(b.points) for b in batches[index:]))
            except Refused as error:
                self.set_aside(batch, str(error))
                refused += len(batch.points)
                continue
            batch.path.unlink(missing_ok=True)
            sent += len(batch.points)
        return DrainReport(sent, refused, 0)

    def set_aside(self, batch: Batch, reason: str) -> None:
        aside = self.directory / "refused"
        aside.mkdir(exist_ok=True)
        body = {"url": batch.url, "run_id": batch.run_id, "points": batch.points, "reason": reason}
        (aside / batch.path.name).write_text(json.dumps(body))
        batch.path.unlink(missing_ok=True)
        logger.warning("spool.refused", extra={"run_id": batch.run_id, "reason": reason})


class BackgroundDrain:
    """A daemon thread that drains one run's batches, backing off while the platform is away.

    ``kick()`` asks for a drain now (a batch was just spilled); ``wait(timeout_s)`` waits until
    nothing of the run is left, for the end of a training script."""

    def __init__(self, spool: Spool, send: Sender, url: str, run_id: int) -> None:
        self.spool, self.send, self.url, self.run_id = spool, send, url, run_id
        self.wake = threading.Event()
        self.empty = threading.Event()
        self.stopped = False
        self.thread = threading.Thread(target=self.loop, name="crucible-spool", daemon=True)
        self.thread.start()

    def kick(self) -> None:
        self.empty.clear()
        self.wake.set()

    def loop(self) -> None:
        failures = 0
        while not self.stopped:
            try:
                report = self.spool.drain(self.send, self.url, self.run_id)
            except Exception:  # a full disk, a bug: never end the thread the trainer relies on
                logger.exception("spool.drain_failed", extra={"run_id": self.run_id})
                report = DrainReport(0, 0, 1)
            if report.left:
                failures += 1
                wait_s = min(0.5 * 2 ** min(failures, 8), MAX_WAIT_S)
            else:
                failures = 0
                self.empty.set()
                wait_s = MAX_WAIT_S
            self.wake.wait(wait_s)
            self.wake.clear()

    def wait(self, timeout_s: float) -> bool:
        """True once the run has nothing left on disk; False after ``timeout_s``."""
        self.kick()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.empty.wait(min(0.5, max(deadline - time.monotonic(), 0))):
                if not self.spool.batches(self.url, self.run_id):
                    return True
                self.kick()
        return not self.spool.batches(self.url, self.run_id)

    def stop(self) -> None:
        self.stopped = True
        self.wake.set()
