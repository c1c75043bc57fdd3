"""Logging a training script's metrics into a run without ever breaking the training.

``log()`` only buffers. Every ``flush_interval_s`` (or ``batch_size`` points) the buffer is
written to the disk spool as one batch and a background thread sends the spool to
``POST /api/v1/runs/<id>/metrics/`` in order. While the platform is unreachable (its web
server restarting, a network cut) the batches wait on disk and the thread retries with
backoff; ``close()`` waits a bounded time for them, and what is still on disk after (the
platform stayed away, the script was killed) is sent later by ``crucible sync``. A batch the
server refuses for good (a finished run, a revoked token) is set aside and logged, never
raised: nothing here raises into the trainer but a metric that is not a number.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from crucible_client.http import Http, error_of
from crucible_client.points import metric_points
from crucible_client.spool import BackgroundDrain, Batch, Refused, SendLater, Spool

logger = logging.getLogger("crucible_client")

MAX_BATCH_POINTS = 1000
RETRIED_STATUSES = {408, 425, 429, 500, 502, 503, 504}


def sender(http: Http) -> Any:
    """Sends a spooled batch over ``http``: ``SendLater`` for what may pass later."""

    def send(batch: Batch) -> None:
        path = f"/api/v1/runs/{batch.run_id}/metrics/"
        try:
            response = http.session.post(http.url + path, json=batch.points, timeout=http.timeout_s)
        except OSError as error:  # requests' errors are OSErrors: refused, reset, timed out
            raise SendLater(str(error)) from None
        if response.status_code in RETRIED_STATUSES:
            raise SendLater(f"{response.status_code}")
        if response.status_code >= 400:
            raise Refused(str(error_of(response)))
        refused = [r for r in response.json().get("results", []) if r.get("status") == "refused"]
        if refused:
            logger.warning(
                "metrics.points_refused", extra={"run_id": batch.run_id, "refused": refused[:5]}
            )

    return send


class RunLogger:
    def __init__(
        self,
        http: Http,
        run_id: int,
        *,
        spool: Spool | None = None,
        flush_interval_s: float = 1.0,
        batch_size: int = 500,
    ) -> None:
        if not 1 <= batch_size <= MAX_BATCH_POINTS:
            raise ValueError(f"batch_size: between 1 and {MAX_BATCH_POINTS}, got {batch_size}")
        self.http = http
        self.run_id = int(run_id)
        self.spool = spool or Spool()
        self.flush_interval_s = flush_interval_s
        self.batch_size = batch_size
        self.buffer: dict[tuple[str, int], dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.last_flush = time.monotonic()
        self.drain = BackgroundDrain(self.spool, sender(http), http.url, self.run_id)

    def log(
        self,
        step: int,
        metrics: Mapping[str, float],
        tokens: int | None = None,
        wall_time: float | None = None,
    ) -> None:
        """Buffer ``metrics`` at ``step`` (NaN and infinities as null); a key logged again at
        the same step before it was sent keeps its latest value."""
        points = metric_points(step, metrics, tokens, wall_time)
        with self.lock:
            for point in points:
                self.buffer[(point["key"], point["step"])] = point
            due = time.monotonic() - self.last_flush >= self.flush_interval_s
        if len(self.buffer) >= self.batch_size or due:
            self.flush()

    def flush(self) -> None:
        """Move the buffer to disk and ask the background thread to send it."""
        with self.lock:
            points, self.buffer = list(self.buffer.values()), {}
            self.last_flush = time.monotonic()
        for start in range(0, len(points), self.batch_size):
            try:
                self.spool.put(self.http.url, self.run_id, points[start : start + self.batch_size])
            except OSError:  # a full or read-only disk: losing points beats killing training
                logger.exception("metrics.spool_failed", extra={"run_id": self.run_id})
        if points:
            self.drain.kick()

    @property
    def pending(self) -> int:
        """Points written to disk and not yet accepted by the platform."""
        return self.spool.pending(self.http.url, self.run_id)

    def close(self, timeout_s: float = 30.0) -> bool:
        """Flush and wait up to ``timeout_s`` for the platform to take everything; False when
        points are left on disk for ``crucible sync``."""
        self.flush()
        done = self.drain.wait(timeout_s)
        self.drain.stop()
        if not done:
            logger.warning(
                "metrics.left_for_sync", extra={"run_id": self.run_id, "points": self.pending}
            )
        return done

    def __enter__(self) -> RunLogger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def sync(http: Http, spool: Spool | None = None) -> tuple[int, int, int]:
    """Send every spooled batch addressed to ``http``'s platform: (sent, refused, left)."""
    spool = spool or Spool()
    report = spool.drain(sender(http), url=http.url)
    return report.sent, report.refused, report.left

