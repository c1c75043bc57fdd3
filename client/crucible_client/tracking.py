"""Stream a training script's metrics into a Crucible run from outside the platform.

It ships with the client (``pip install ./client``, no platform or torch needed) and uses only
the standard library; the callback plugs it into any ``transformers.Trainer`` (installed by
the training script), TRL's trainers included::

    from crucible_client.tracking import CrucibleCallback, CrucibleClient

    client = CrucibleClient("https://crucible.example.org", token, run_id=42)
    trainer = GRPOTrainer(..., callbacks=[CrucibleCallback(client)])
    trainer.train()
    client.close()

The callback never raises into the trainer: while the platform is unreachable (its web server
restarting, a network cut) it writes what it could not send to a disk queue
(``crucible_client.spool``, ``CRUCIBLE_SPOOL_DIR``), a background thread sends it once the
platform answers again, and what is still on disk when training ends is sent by
``crucible sync``. A batch the platform refuses for good is logged and dropped.

or without a trainer::

    with CrucibleClient(url, token, run_id=42) as client:
        for step in range(steps):
            client.log(step, {"reward": r, "kl": kl}, tokens=tokens_seen)

Points go to ``POST /api/v1/runs/<id>/metrics/`` in batches (at most 1,000 points and 1 MB
each, the endpoint's limits). The endpoint is idempotent (a point's identity is its key and
step), so a batch that failed on the network or a 5xx is simply sent again, with backoff. A
4xx (a bad token, a missing role, a finished run) or a refused point raises ``CrucibleError``
with the server's reasons: retrying would not help. Not thread-safe: one client per thread.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from .points import metric_points
from .spool import BackgroundDrain, Batch, Refused, SendLater, Spool

try:  # the client works without transformers; only the callback needs it
    from transformers import TrainerCallback
except ImportError:  # pragma: no cover - exercised only where transformers is absent
    TrainerCallback = object  # type: ignore[misc,assignment]

MAX_BATCH_POINTS = 1000
# Under the endpoint's 1 MB, with room for the list's brackets and separators.
MAX_BATCH_BYTES = 1_000_000
RETRIED_STATUSES = {408, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF_S = 30.0
# The callback's own client gives up on a send quickly: what failed goes to disk and is retried
# in the background, so the trainer waits seconds for an outage, not minutes.
CALLBACK_RETRIES = 2

logger = logging.getLogger("crucible_client.tracking")


class CrucibleError(RuntimeError):
    """The server refused a batch or some of its points; ``errors`` are its reasons."""

    def __init__(self, status: int | None, message: str, errors: list[dict] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.errors = errors or []


class CrucibleClient:
    def __init__(
        self,
        base_url: str,
        token: str,
        run_id: int,
        *,
        batch_size: int = 500,
        flush_interval_s: float = 1.0,
        retries: int = 5,
        backoff_s: float = 0.5,
        timeout_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """``batch_size`` points (at most 1,000) or ``flush_interval_s`` seconds since the
        last send, whichever comes first, send the buffer; ``retries`` more attempts follow a
        failed send, ``backoff_s`` doubling between them."""
        if not 1 <= batch_size <= MAX_BATCH_POINTS:
            raise ValueError(f"batch_size: between 1 and {MAX_BATCH_POINTS}, got {batch_size}")
        self.base_url = base_url.rstrip("/")
        self.run_id = int(run_id)
        self.url = f"{self.base_url}/api/v1/runs/{self.run_id}/metrics/"
        self.token = token
        self.batch_size = batch_size
        self.flush_interval_s = flush_interval_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.sleep = sleep
        self.buffer: dict[tuple[str, int], dict[str, Any]] = {}
        self.last_flush = time.monotonic()
        self.seq: int | None = None
        """The run's sequence number after the last accepted batch."""

    def log(
        self,
        step: int,
        metrics: Mapping[str, float],
        tokens: int | None = None,
        wall_time: float | None = None,
    ) -> None:
        """Buffer ``metrics`` at ``step``; NaN and infinities are sent as null. A key logged
        again at the same step before it was sent keeps its latest value."""
        for point in metric_points(step, metrics, tokens, wall_time):
            self.buffer[(point["key"], point["step"])] = point
        due = time.monotonic() - self.last_flush >= self.flush_interval_s
        if len(self.buffer) >= self.batch_size or due:
            self.flush()

    def flush(self) -> None:
        """Send everything buffered; what could not be sent stays buffered for the next flush."""
        self.last_flush = time.monotonic()
        while self.buffer:
            batch = list(self.buffer.values())[: self.batch_size]
            body = json.dumps(batch).encode()
            while len(body) > MAX_BATCH_BYTES and len(batch) > 1:
                batch = batch[: len(batch) // 2]
                body = json.dumps(batch).encode()
            try:
                answer = self.send(body)
            except CrucibleError as error:
                if error.status is not None and error.status not in RETRIED_STATUSES:
                    self.drop(batch)  # refused for good: sending it again cannot help
                raise
            self.drop(batch)
            self.seq = answer.get("seq", self.seq)
            refused = [r for r in answer.get("results", []) if r.get("status") == "refused"]
            if refused:
                raise CrucibleError(207, refused_message(batch, refused), refused)

    def drop(self, batch: list[dict[str, Any]]) -> None:
        for point in batch:
            self.buffer.pop((point["key"], point["step"]), None)

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> CrucibleClient:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.close()
            return
        try:  # the script failed already: send what it logged, but keep its own error
            self.close()
        except CrucibleError:
            pass

    def send(self, body: bytes) -> dict[str, Any]:
        """POST one batch, retrying what may pass later; the server's JSON answer."""
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(
                self.url,
                data=body,
                method="POST",
                headers={
                    "Authorization": f"Bearer {self.token}",
                    "Content-Type": "application/json",
                    "Accept": "application/json",
                },
            )
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read() or b"{}")
            except urllib.error.HTTPError as error:
                if error.code not in RETRIED_STATUSES or attempt == self.retries:
                    raise http_error(error) from None
                wait_s = retry_after(error) or self.backoff(attempt)
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                if attempt == self.retries:
                    raise CrucibleError(
                        None, f"Crucible at {self.url} is unreachable: {error}"
                    ) from error
                wait_s = self.backoff(attempt)
            self.sleep(wait_s)
        raise AssertionError("unreachable")  # the loop returns or raises

    def backoff(self, attempt: int) -> float:
        return min(self.backoff_s * 2**attempt, MAX_BACKOFF_S)


def retry_after(error: urllib.error.HTTPError) -> float | None:
    try:
        return min(float(error.headers.get("Retry-After", "")), MAX_BACKOFF_S)
    except ValueError:
        return None


def http_error(error: urllib.error.HTTPError) -> CrucibleError:
    """The server's reasons (its ``{"errors": [...]}`` shape) as an exception."""
    try:
        errors = json.loads(error.read() or b"{}").get("errors", [])
    except (ValueError, AttributeError):
        errors = []
    reasons = "; ".join(e.get("message", "") for e in errors if isinstance(e, dict))
    return CrucibleError(
        error.code,
        f"Crucible refused the metrics ({error.code}): {reasons or error.reason}",
        errors,
    )


def refused_message(batch: list[dict[str, Any]], refused: list[dict[str, Any]]) -> str:
    shown = []
    for result in refused[:5]:
        point = batch[result["index"]]
        reasons = "; ".join(e["message"] for e in result.get("errors", []))
        shown.append(f"{point['key']!r} at step {point['step']}: {reasons}")
    more = f" (and {len(refused) - 5} more)" if len(refused) > 5 else ""
    return f"Crucible refused {len(refused)} point(s): " + " | ".join(shown) + more


class CrucibleCallback(TrainerCallback):
    """Streams a ``transformers.Trainer``'s logs (TRL's names as they are: ``reward``,
    ``kl``, ``entropy``, ``completions/mean_length``...) into a Crucible run.

    Each log line is one batch at ``state.global_step``, stamped with the wall time, and with
    the tokens seen when the trainer counts them (``num_input_tokens_seen``, else TRL's
    ``num_tokens``). Only the main process sends. Without a client, one is made from
    ``CRUCIBLE_URL``, ``CRUCIBLE_TOKEN`` and ``CRUCIBLE_RUN_ID``.

    Nothing it does raises into the trainer. A batch that could not reach the platform goes
    to ``spool`` (a disk queue) and is sent by a background thread, in order, before anything
    logged after it; at the end of training it waits up to ``drain_timeout_s`` for the queue
    to empty and leaves the rest to ``crucible sync``.
    """

    def __init__(
        self,
        client: CrucibleClient | None = None,
        *,
        spool: Spool | None = None,
        drain_timeout_s: float = 60.0,
    ) -> None:
        if client is None:
            client = CrucibleClient(
                os.environ["CRUCIBLE_URL"],
                os.environ["CRUCIBLE_TOKEN"],
                int(os.environ["CRUCIBLE_RUN_ID"]),
                retries=CALLBACK_RETRIES,
            )
        self.client = client
        self.spool = spool or Spool()
        self.drain_timeout_s = drain_timeout_s
        self.drain: BackgroundDrain | None = None

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        if not state.is_world_process_zero or not logs:
            return
        numbers = {
            key: value
            for key, value in logs.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
        if numbers:
            self.safely(lambda: self.client.log(state.global_step, numbers, tokens_seen(state, logs)))
            self.safely(self.send)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not state.is_world_process_zero:
            return
        self.safely(self.send)
        if self.drain is not None:
            if not self.drain.wait(self.drain_timeout_s):
                logger.warning(
                    "tracking.left_for_sync",
                    extra={"run_id": self.client.run_id, "spool": str(self.spool.directory)},
                )
            self.drain.stop()
            self.drain = None

    def send(self) -> None:
        """Flush, unless earlier batches still wait on disk: then join them, keeping order."""
        if self.drain is not None and self.spool.batches(self.client.base_url, self.client.run_id):
            self.spill()
            return
        try:
            self.client.flush()
        except CrucibleError as error:
            if error.status is None or error.status in RETRIED_STATUSES:
                self.spill()
            else:  # refused for good (the client dropped it): say so, and train on
                logger.warning(
                    "tracking.refused", extra={"run_id": self.client.run_id, "reason": str(error)}
                )

    def spill(self) -> None:
        points = list(self.client.buffer.values())
        if points:
            self.spool.put(self.client.base_url, self.client.run_id, points)
            self.client.buffer.clear()
        if self.drain is None:
            self.drain = BackgroundDrain(
                self.spool, self.send_spooled, self.client.base_url, self.client.run_id
            )
        self.drain.kick()

    def send_spooled(self, batch: Batch) -> None:
        try:
            self.client.send(json.dumps(batch.points).encode())
        except CrucibleError as error:
            if error.status is None or error.status in RETRIED_STATUSES:
                raise SendLater(str(error)) from None
            raise Refused(str(error)) from None

    def safely(self, action: Callable[[], None]) -> None:
        try:
            action()
        except Exception:  # a bug or a full disk must not end hours of training
            logger.exception("tracking.failed", extra={"run_id": self.client.run_id})


def tokens_seen(state: Any, logs: Mapping[str, Any]) -> int | None:
    counted = getattr(state, "num_input_tokens_seen", 0) or logs.get("num_tokens")
    if isinstance(counted, (int, float)) and math.isfinite(counted) and counted > 0:
        return int(counted)
    return None
