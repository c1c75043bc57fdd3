"""Following a run over its websocket (``/ws/runs/<id>/``), as the API's description says:
reconnect with backoff after any close but 4401/4403, resume with ``?since=<last seq>``, ask
for what a gap in the chain of ``points`` frames missed, and stop once a ``run`` frame says the
run ended."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from crucible_client.http import ApiError, Unreachable

FINISHED_STATES = frozenset({"succeeded", "failed", "cancelled"})
# Close codes that reconnecting cannot fix: the credentials ended, or the run is not ours.
FINAL_CLOSES = {4401: 401, 4403: 404}
MAX_BACKOFF_S = 15.0


class RunStream:
    """Frames of one run, as dicts; ``seq`` is the last sequence number received."""

    def __init__(
        self,
        url: str,
        token: str,
        run_id: int,
        *,
        since: int | None = None,
        reconnect_for_s: float = 300.0,
        idle_timeout_s: float = 60.0,
    ) -> None:
        base = url.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        self.base = f"{base}/ws/runs/{int(run_id)}/"
        self.token = token
        self.run_id = run_id
        self.seq = since
        self.run: dict[str, Any] | None = None
        self.reconnect_for_s = reconnect_for_s
        self.idle_timeout_s = idle_timeout_s
        self.reconnects = 0

    def address(self) -> str:
        return self.base + (f"?{urlencode({'since': self.seq})}" if self.seq is not None else "")

    def frames(self, until_finished: bool = True) -> Iterator[dict[str, Any]]:
        """Every frame, across reconnects; ends after the frame that says the run finished
        (a run frame, or a history or catch-up carrying it) when ``until_finished``."""
        down_since: float | None = None
        attempt = 0
        while True:
            try:
                with self.open() as socket:
                    down_since, attempt = None, 0
                    for frame in self.read(socket):
                        yield frame
                        if until_finished and self.finished:
                            return
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                if code in FINAL_CLOSES:
                    raise ApiError(
                        FINAL_CLOSES[code], [], f"run {self.run_id}'s socket closed with {code}"
                    ) from None
            except (OSError, InvalidHandshake, TimeoutError) as error:
                if isinstance(error, InvalidStatus) and error.response.status_code in (401, 403):
                    raise ApiError(error.response.status_code, [], str(error)) from None
            down_since = down_since or time.monotonic()
            if time.monotonic() - down_since > self.reconnect_for_s:
                raise Unreachable(None, [], f"run {self.run_id}'s socket stayed unreachable")
            time.sleep(min(0.5 * 2**attempt, MAX_BACKOFF_S))
            attempt += 1
            self.reconnects += 1

    def open(self) -> ClientConnection:
        return connect(
            self.address(),
            additional_headers={"Authorization": f"Bearer {self.token}"},
            open_timeout=10,
        )

    def read(self, socket: ClientConnection) -> Iterator[dict[str, Any]]:
        while True:
            frame = json.loads(socket.recv(timeout=self.idle_timeout_s))
            kind = frame.get("type")
            if kind == "points" and self.seq is not None and frame.get("prev") != self.seq:
                socket.send(json.dumps({"type": "resume", "since": self.seq}))
                continue  # the catch-up that answers carries these points too
            if kind in ("history", "points", "paused") and "seq" in frame:
                self.seq = frame["seq"]
            if isinstance(frame.get("run"), dict):
                self.run = frame["run"]
            yield frame

    @property
    def finished(self) -> bool:
        return self.run is not None and self.run.get("state") in FINISHED_STATES


def progress_of(frame: dict[str, Any]) -> tuple[int, int] | None:
    """(step, max_steps) when the frame carries the run."""
    run = frame.get("run")
    if isinstance(run, dict) and isinstance(run.get("step"), int):
        return run["step"], int(run.get("max_steps") or 0)
    return None
