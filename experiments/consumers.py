"""The run page's websocket: ``/ws/runs/<id>/`` streams one run's metrics and state.

Protocol (server to client):

- ``{"type": "hello", ...}``: the connection is accepted (see ``AuthenticatedConsumer``).
- ``{"type": "history", "seq", "keys", "points": {key: {step, value, wall_time, tokens,
  total}}, "run"}``: everything so far, downsampled per key; it replaces what the client holds.
- ``{"type": "points", "prev", "seq", "points": {key: {step, value, wall_time, tokens}},
  "replaced"?: {key: [step]}}``: the points written after ``prev`` up to ``seq``. A point's
  identity is its key and step: one the client already holds replaces it in place (never a
  second point at that step). ``replaced``, when present, names the steps whose value changed
  a point stored before (a recomputed step with another value); a point re-sent with its
  stored value is not sent at all. Frames follow each other without gaps (each ``prev`` is
  the previous frame's ``seq``) and come at most every ``FRAME_INTERVAL_S``.
- ``{"type": "run", "run": {id, state, step, max_steps, failure_reason, pause_requested,
  pause_reason, worker_seconds, generated_tokens, judge_tokens, cost}}``: the run changed.
- ``{"type": "events", "version"}``: the run's events (pauses, resumes, curriculum changes)
  changed; read them at ``GET /api/v1/runs/<id>/events/``.
- ``{"type": "paused", "seq"}``: acknowledges a pause.

After a channel-layer outage (Redis down or restarted) the socket stays open: once the layer
is back it sends the points it missed (a points or history frame), the run and its events
version, then live frames again.

Client to server: ``{"type": "pause"}`` (the tab is hidden: nothing more is sent until it
resumes); ``{"type": "resume", "since": seq}`` (a points frame with what came after ``seq``,
or a history when that is too much, then the run as it is now, then live frames again;
without ``since``, after the last frame sent); ``{"type": "ping"}`` (``{"type": "pong"}``).
On connect, ``?since=<seq>`` asks for what came after ``seq`` instead of the history (a
reconnecting client), then the run as it is now; ``?max_points=<n>`` sets a history's
points per key.

Closes with 4401 when unauthenticated and 4403 for a run outside the caller's teams (or one
that does not exist).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from crucible.realtime.consumers import AuthenticatedConsumer
from crucible.realtime.groups import user_group
from experiments.models.runs import FINISHED_STATES
from experiments.services import live

# Coalescing: a socket sends at most one live points frame this often (the first at once),
# so a fast run cannot flood a browser; frames arriving in between are merged. A history or
# a catch-up answers the client and does not hold back the live frame that follows it.
FRAME_INTERVAL_S = 0.5
MAX_HISTORY_POINTS = 20_000


class RunMetricsConsumer(AuthenticatedConsumer):
    run_id: int
    seq: int
    pending: list[tuple[dict[str, Any], str]]
    paused: bool
    following: bool
    last_sent: float
    flusher: asyncio.Task | None
    lock: asyncio.Lock
    max_points: int

    async def connect(self) -> None:
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        self.seq, self.pending, self.paused, self.following = 0, [], False, False
        self.last_sent, self.flusher, self.lock = 0.0, None, asyncio.Lock()
        await super().connect()
        if not self.groups_joined:
            return  # turned away: closed with 4401 or 4403
        since, self.max_points = self.query_numbers()
        # Receive live frames before reading what is there, so nothing falls in between.
        await self.follow(True)
        async with self.lock:
            if since is None:
                await self.send_frame(
                    await database_sync_to_async(live.history_frame)(self.run_id, self.max_points)
                )
            else:
                await self.catch_up(since, always=True)
        if since is not None:
            # A reconnecting client missed the run's state changes while away (a history
            # carries the run; a catch-up does not), and a run that ended meanwhile sends none.
            await self.send_json(await database_sync_to_async(live.run_frame)(self.run_id))

    def query_numbers(self) -> tuple[int | None, int]:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        since = non_negative(query.get("since", [None])[0])
        max_points = non_negative(query.get("max_points", [None])[0])
        if max_points is None:
            max_points = live.HISTORY_MAX_POINTS
        return since, min(max_points, MAX_HISTORY_POINTS) or MAX_HISTORY_POINTS

    async def groups_for(self, user: Any) -> list[str] | None:
        token = self.scope.get("token")
        visible = await database_sync_to_async(live.viewable_run)(
            user.pk, token.pk if token is not None else None, self.run_id
        )
        # The run's frames come through this process's hub (``live.RunHub``); the user's
        # group carries "access changed" notices, so a removed member is cut off.
        return [user_group(user.pk)] if visible else None

    async def follow(self, on: bool) -> None:
        """Take the run's frames from this process's hub while watching (not while paused)."""
        if on and not self.following:
            self.following = True
            await live.RunHub.join(self.run_id, self.take)
        elif not on and self.following:
            live.RunHub.leave(self.run_id, self.take)
            self.following = False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # A consumer that ends without ``disconnect`` (an error) must not stay in the hub,
            # which would keep handing frames to a socket that is gone.
            if getattr(self, "following", False):
                live.RunHub.leave(self.run_id, self.take)
                self.following = False

    async def disconnect(self, code: int) -> None:
        await self.follow(False)
        if getattr(self, "flusher", None) is not None:
            self.flusher.cancel()
        await super().disconnect(code)

    # --- from the client -----------------------------------------------------------------

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "pause":
            await self.pause()
        elif kind == "resume":
            since = content.get("since", self.seq)
            if isinstance(since, str) or non_negative(since) is None:
                await self.send_json(
                    {"type": "error", "message": "resume: since is a sequence number, 0 or more"}
                )
                return
            await self.resume(since)
        else:
            await super().receive_json(content, **kwargs)

    async def pause(self) -> None:
        # What arrives while paused is dropped: resuming re-reads it from the database.
        self.paused, self.pending = True, []
        await self.follow(False)
        await self.send_json({"type": "paused", "seq": self.seq})

    async def resume(self, since: int) -> None:
        self.paused = False
        await self.follow(True)
        async with self.lock:
            await self.catch_up(since, always=True)
        # The run may have changed while the socket was away from the hub.
        await self.send_json(await database_sync_to_async(live.run_frame)(self.run_id))

    # --- from the run's hub ------------------------------------------------------------------

    def take(self, event: dict[str, Any], text: str) -> None:
        kind = event.get("type")
        if kind == "points" and not self.paused:
            self.pending.append((event, text))
            self.schedule_flush()
        elif kind == "run":
            asyncio.ensure_future(self.run_event(event))
        elif kind == "events":
            asyncio.ensure_future(self.send_json(event))
        elif kind == "resync" and not self.paused:
            asyncio.ensure_future(self.resync())

    async def resync(self) -> None:
        """Frames may have been lost (the channel layer was down): re-read from the database
        what came after the last frame sent, then the run and its events as they are now."""
        async with self.lock:
            await self.flush()
            await self.catch_up(self.seq)
        await self.send_json(await database_sync_to_async(live.run_frame)(self.run_id))
        version = await database_sync_to_async(live.events_version)(self.run_id)
        await self.send_json({"type": "events", "version": list(version)})

    async def run_event(self, event: dict[str, Any]) -> None:
        await self.send_json(event)
        if event["run"]["state"] in FINISHED_STATES and not self.paused:
            # A finished run writes nothing more: make sure its last points are here even if
            # their frame was lost, since no later frame would reveal the gap.
            async with self.lock:
                await self.flush()
                await self.catch_up(self.seq)

    def schedule_flush(self) -> None:
        if self.flusher is None:
            delay_s = max(0.0, self.last_sent + FRAME_INTERVAL_S - time.monotonic())
            self.flusher = asyncio.ensure_future(self.flush_after(delay_s))

    async def flush_after(self, delay_s: float) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        self.flusher = None
        async with self.lock:
            await self.flush()

    async def flush(self) -> None:
        """Send the pending frames as one, or re-read the database if one is missing."""
        pending = sorted(self.pending, key=lambda p: (p[0]["prev"], p[0]["seq"]))
        self.pending = []
        seq, chained = self.seq, []
        for frame, text in pending:
            if frame["seq"] <= seq:
                continue  # already sent (in the history, a catch-up or an earlier frame)
            if frame["prev"] != seq:
                await self.catch_up(self.seq)
                self.last_sent = time.monotonic()
                return
            chained.append((frame, text))
            seq = frame["seq"]
        if len(chained) == 1:  # the usual case: the frame as the hub encoded it
            await self.send(text_data=chained[0][1])
            self.seq = seq
        elif chained:
            merged = live.points_frame(
                self.seq, seq, live.merge_columns(frame["points"] for frame, _ in chained)
            )
            replaced = live.replaced_steps(
                (key, step)
                for frame, _ in chained
                for key, steps in frame.get("replaced", {}).items()
                for step in steps
            )
            if replaced:
                merged["replaced"] = replaced
            await self.send_json(merged)
            self.seq = seq
        else:
            return
        self.last_sent = time.monotonic()

    async def catch_up(self, since: int, *, always: bool = False) -> None:
        frame = await database_sync_to_async(live.catch_up_frame)(
            self.run_id, since, self.max_points
        )
        if always or frame["type"] == "history" or frame["points"]:
            await self.send_frame(frame)
        else:
            self.seq = max(self.seq, frame["seq"])

    async def send_frame(self, frame: dict[str, Any]) -> None:
        await self.send_json(frame)
        self.seq = frame["seq"]
        self.pending = [p for p in self.pending if p[0]["seq"] > self.seq]


def non_negative(value: Any) -> int | None:
    """``value`` as a whole number 0 or more (from a query string or JSON), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if isinstance(value, int) and value >= 0 else None
