"""Sending traffic to a deployment's generate endpoint: open-loop at a rate, or closed-loop
from a number of clients, with what came back summed up as it goes.

``send`` is what ``manage.py replay_traffic`` and ``bench/serving.py`` drive. At a ``rate``
requests start on schedule whether or not earlier ones have answered (as users would
send them, so a slow server builds a queue and sees its 503s); without one, each of
``concurrency`` clients sends its next request when its last one is answered. Pure
Python: no Django.
"""

from __future__ import annotations

import http.client
import itertools
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from serving import keepalive


@dataclass(frozen=True)
class Result:
    status: int
    """The HTTP status; 0 when the server could not be reached."""
    latency_ms: float
    side: str = ""
    detail: str = ""
    """Why it was not answered: the error body's message, or the connection's failure."""
    retry_after: str = ""
    """Set when the server asks to be tried again later (a full queue, a replica restarting)."""

    @property
    def refused(self) -> bool:
        """Not answered, and not a "try again later": sending more will not help."""
        return self.status != 200 and not self.retry_after


@dataclass
class Summary:
    sent: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    sides: Counter[str] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    last_error: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, result: Result) -> None:
        with self.lock:
            self.statuses[result.status] += 1
            if result.status == 200:
                self.latencies_ms.append(result.latency_ms)
                self.sides[result.side] += 1
            elif result.detail:
                self.last_error = f"{result.status}: {result.detail}"

    @property
    def seconds(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def percentile(self, q: float) -> float | None:
        """The ``q`` quantile (0-1, nearest rank) of the answered requests' latency."""
        with self.lock:
            values = sorted(self.latencies_ms)
        if not values:
            return None
        rank = max(1, min(len(values), int(-(-q * len(values) // 1))))
        return values[rank - 1]

    def to_dict(self) -> dict[str, Any]:
        ok = self.statuses.get(200, 0)
        return {
            "sent": self.sent,
            "answered": ok,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "sides": dict(self.sides),
            "seconds": round(self.seconds, 3),
            "requests_per_s": round(ok / self.seconds, 3) if self.seconds else 0.0,
            "latency_p50_ms": self.percentile(0.5),
            "latency_p99_ms": self.percentile(0.99),
        }


def post(url: str, token: str, body: dict[str, Any], timeout: float = 60.0) -> Result:
    """POST ``body`` as a client library would (a kept-alive connection per thread)."""
    started = time.perf_counter()
    auth = {"Authorization": f"Bearer {token}"}
    try:
        answer = keepalive.post_json(url, body, timeout=timeout, headers=auth)
    except (http.client.HTTPException, OSError) as lost:
        latency = (time.perf_counter() - started) * 1000
        return Result(0, latency, detail=f"{type(lost).__name__}: {lost}"[:200])
    latency = (time.perf_counter() - started) * 1000
    found = answer.json()
    if answer.status == 200:
        return Result(200, latency, str(found.get("side", "")))
    why = error_message(found) or answer.body.decode("utf-8", "replace").strip()[:120]
    return Result(answer.status, latency, detail=why[:200], retry_after=answer.retry_after)


def error_message(body: dict[str, Any]) -> str:
    """The message of an error body in the API's shape (``{"errors": [{"field", "code",
    "message"}]}``, the field named first), or its ``detail``; blank when it has neither."""
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        first = errors[0]
        field = f"{first['field']}: " if first.get("field") else ""
        return f"{field}{first.get('message', '')}"
    return str(body.get("detail", ""))


def send(
    url: str | Sequence[str],
    token: str,
    bodies: Iterable[dict[str, Any]],
    *,
    rate: float | None = None,
    concurrency: int = 8,
    on_result: Callable[[Result, Summary], None] | None = None,
    stop: threading.Event | None = None,
) -> Summary:
    """Send every body in ``bodies`` to ``url`` (several: in turn, as a load balancer in
    front of several web processes would); the summary of what came back."""
    summary = Summary()
    stop = stop or threading.Event()
    urls = [url] if isinstance(url, str) else list(url)
    turn = itertools.count()

    def one(body: dict[str, Any]) -> None:
        result = post(urls[next(turn) % len(urls)], token, body)
        summary.add(result)
        if on_result is not None:
            on_result(result, summary)

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        running: set[Future[None]] = set()
        for i, body in enumerate(_paced(bodies, rate, stop)):
            if rate is None:
                while len(running) >= concurrency:
                    _, running = _settle(running)
            running.add(pool.submit(one, body))
            summary.sent = i + 1
            if len(running) > 4 * concurrency:
                _, running = _settle(running, block=False)
        wait(running)
    summary.finished = time.monotonic()
    return summary


def _paced(
    bodies: Iterable[dict[str, Any]], rate: float | None, stop: threading.Event
) -> Iterator[dict[str, Any]]:
    start = time.monotonic()
    for i, body in enumerate(bodies):
        if stop.is_set():
            return
        if rate:
            delay = start + i / rate - time.monotonic()
            if delay > 0 and stop.wait(delay):
                return
        yield body


def _settle(
    running: set[Future[None]], block: bool = True
) -> tuple[set[Future[None]], set[Future[None]]]:
    done, pending = wait(running, timeout=None if block else 0, return_when=FIRST_COMPLETED)
    for future in done:
        future.result()
    return done, set(pending)
