"""Live metrics and run state for the run page's websocket (``experiments.consumers``).

Frames carry sequence numbers: a metric point's id is its sequence number within its run
(``experiments.services.metrics``). A points frame says ``{prev, seq, points}``: it holds
every point of the run with ``prev < id <= seq``, so a socket that last sent ``prev`` can
append it, and one that sees any other ``prev`` knows it missed something and re-reads the
database from its own last ``seq``.

Two ways frames reach a web process, chosen from the channel layer:

- push (channels-redis, production): the writer publishes each committed write to the
  group ``run.<id>``, whichever process it runs in; each web process receives it once and
  fans it out to its sockets (``RunHub``).
- follow (the in-memory layer, the embedded default): the worker is another process that
  the in-memory layer cannot reach, so each web process follows new rows of the runs its
  sockets watch, one reader per run, only while the run has viewers.

A hub outlives a channel-layer outage: while Redis is down it tries again to join the run's
group, and once it is back it hands its sockets a ``resync`` (what was published meanwhile
is lost), on which each re-reads what it missed from the database. A hub whose task has
ended anyway is replaced by the next socket that joins.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from crucible.accounts.services import live_team_ids
from crucible.realtime.consumers import wait_for_layer
from crucible.realtime.publish import publish, publish_to_team
from experiments.models import MetricPoint, Run, RunEvent

from .. import health
from . import metric_queries

logger = logging.getLogger(__name__)

# How often a web process looks for new rows of a watched run (follow mode).
FOLLOW_INTERVAL_S = 0.5
# A catch-up larger than this is sent as a fresh (downsampled) history instead of points.
CATCH_UP_MAX_POINTS = 20_000
# Points a follower reads in one look; the rest comes in the next one.
FOLLOW_MAX_ROWS = 5_000
# Points per key in a history frame unless the socket asks otherwise.
HISTORY_MAX_POINTS = 2_000
# How long a joining socket waits for its hub to join the run's group; past it (the layer is
# down) the socket goes on with what the database has and is sent a resync once it is back.
HUB_READY_WAIT_S = 2.0
# What a hub hands its sockets when frames may have been lost: re-read from the database.
RESYNC = {"type": "resync"}

Columns = dict[str, dict[str, list[Any]]]


def run_group(run_id: int) -> str:
    return f"run.{run_id}"


def pushes() -> bool:
    """True when writers publish (a channel layer shared by processes); False when sockets
    follow the database (the in-memory layer, or none)."""
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    return bool(backend) and not backend.endswith("InMemoryChannelLayer")


# --- publishing (called by writers) ---------------------------------------------------------


def points_written(
    run_id: int,
    prev: int,
    seq: int,
    rows: Sequence[MetricPoint],
    replaced: Sequence[tuple[str, int]] = (),
) -> None:
    """Publish a write once its transaction commits (push mode; a no-op when following).

    ``replaced``: the (key, step) of the rows that replace a point stored before."""
    if not pushes():
        return
    frame = points_frame(
        prev, seq, columns((r.key, r.step, r.value, r.wall_time, r.tokens) for r in rows)
    )
    if replaced:
        frame["replaced"] = replaced_steps(replaced)
    transaction.on_commit(lambda: publish(run_group(run_id), frame), robust=True)


def run_changed(run: Run) -> None:
    """Tell the run's viewers (and its team's pages) that its state or progress changed.

    Call it after saving the run, inside or outside a transaction: it publishes on commit.
    """
    frame = {"type": "run", "run": run_summary(run)}
    team_event = {"type": "run.changed", **frame["run"]}

    def send() -> None:
        publish(run_group(run.pk), frame)
        publish_to_team(run.team_id, team_event)

    transaction.on_commit(send, robust=True)


def events_changed(run: Run) -> None:
    """Tell the run's viewers that its events (pauses, curriculum changes) changed; they read
    them again over REST. Followers notice by themselves (``RunHub.look``)."""
    if pushes():
        frame = {"type": "events", "version": list(events_version(run.pk))}
        transaction.on_commit(lambda: publish(run_group(run.pk), frame), robust=True)


def events_version(run_id: int) -> tuple[int, int, int]:
    """Changes whenever an event is added, applied or withdrawn: (count, last id, applied)."""
    rows = RunEvent.objects.filter(run_id=run_id)
    last = rows.order_by("-id").values_list("id", flat=True).first() or 0
    return rows.count(), last, rows.exclude(applied_at_step=None).count()


def run_frame(run_id: int) -> dict[str, Any]:
    return {"type": "run", "run": run_summary(Run.objects.get(pk=run_id))}


def points_frame(prev: int, seq: int, points: Columns) -> dict[str, Any]:
    return {"type": "points", "prev": prev, "seq": seq, "points": points}


def replaced_steps(pairs: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    """``(key, step)`` pairs as ``{key: [steps ascending]}``, as a points frame names them."""
    by_key: dict[str, set[int]] = {}
    for key, step in pairs:
        by_key.setdefault(key, set()).add(step)
    return {key: sorted(steps) for key, steps in by_key.items()}


def run_summary(run: Run) -> dict[str, Any]:
    return {
        "id": run.pk,
        "state": run.state,
        "step": run.step,
        "max_steps": run.max_steps,
        "failure_reason": run.failure_reason,
        "pause_requested": run.pause_requested,
        "pause_reason": run.pause_reason,
        "worker_seconds": run.worker_seconds,
        "generated_tokens": run.generated_tokens,
        "judge_tokens": run.judge_tokens,
        "cost": run.cost,
        "health": health.stored_states(run.health),
    }


def columns(rows: Iterable[tuple[str, int, float | None, float, int | None]]) -> Columns:
    """``(key, step, value, wall_time, tokens)`` rows as columns per key, sorted by step; of
    two rows with the same key and step, the later one stays."""
    by_key: dict[str, dict[int, tuple[float | None, float, int | None]]] = {}
    for key, step, value, wall_time, tokens in rows:
        by_key.setdefault(key, {})[step] = (value, wall_time, tokens)
    out: Columns = {}
    for key, points in by_key.items():
        steps = sorted(points)
        out[key] = {
            "step": steps,
            "value": [points[s][0] for s in steps],
            "wall_time": [points[s][1] for s in steps],
            "tokens": [points[s][2] for s in steps],
        }
    return out


def merge_columns(frames: Iterable[Columns]) -> Columns:
    """Several frames' points as one frame (later frames win on the same key and step)."""
    rows = (
        (key, *point)
        for points in frames
        for key, cols in points.items()
        for point in zip(
            cols["step"], cols["value"], cols["wall_time"], cols["tokens"], strict=True
        )
    )
    return columns(rows)


# --- reading (called by sockets) --------------------------------------------------------------


def viewable_run(user_id: int, token_id: int | None, run_id: int) -> bool:
    """Whether the connection may watch the run: it is in one of the caller's teams."""
    team_ids = live_team_ids(user_id, token_id)
    return team_ids is not None and Run.objects.filter(pk=run_id, team_id__in=team_ids).exists()


def history_frame(run_id: int, max_points: int) -> dict[str, Any]:
    """Everything the run has, downsampled per key: a socket replaces what it holds with it."""
    run = Run.objects.get(pk=run_id)
    snapshot = metric_queries.read_series(run_id, max_points=max_points)
    return {
        "type": "history",
        "seq": snapshot.seq,
        "keys": sorted(snapshot.series),
        "points": {
            key: {
                "step": s.step,
                "value": s.value,
                "wall_time": s.wall_time,
                "tokens": s.tokens,
                "total": s.total,
            }
            for key, s in snapshot.series.items()
        },
        "run": run_summary(run),
    }


def catch_up_frame(run_id: int, since: int, max_points: int) -> dict[str, Any]:
    """What came after ``since``: a points frame, or a fresh history when that is too much."""
    if sum(metric_queries.counts_by_key(run_id, since=since).values()) > CATCH_UP_MAX_POINTS:
        return history_frame(run_id, max_points)
    snapshot = metric_queries.read_series(run_id, since=since)
    rows = (
        (key, *point)
        for key, s in snapshot.series.items()
        for point in zip(s.step, s.value, s.wall_time, s.tokens, strict=True)
    )
    frame = points_frame(min(since, snapshot.seq), snapshot.seq, columns(rows))
    # A row that replaced a stored point says so here too: a viewer may hold the old value
    # (its live frame was lost or merged into this catch-up) and must not count it twice.
    replaced = MetricPoint.objects.filter(
        run_id=run_id, id__gt=since, id__lte=snapshot.seq, replaces=True
    ).values_list("key", "step")
    if replaced:
        frame["replaced"] = replaced_steps(replaced)
    return frame


# --- one receiver per run per web process -------------------------------------------------------

Deliver = Callable[[dict[str, Any], str], None]
"""A socket's intake: the event, and the event as JSON text (encoded once for all sockets)."""


class RunHub:
    """Receives a run's frames once per web process and hands them to its sockets there.

    One per run per event loop while at least one socket of the process watches the run: the
    channel layer carries one message per write per process instead of one per socket (each
    costs several Redis round trips on the receiving side), and in follow mode one reader
    looks for new rows, however many tabs show the run.
    """

    hubs: ClassVar[dict[tuple[int, int], RunHub]] = {}

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.sockets: list[Deliver] = []
        self.ready = asyncio.Event()
        self.task: asyncio.Task = None  # type: ignore[assignment] # set by join
        # follow mode: the last row handed out, and the run as last seen
        self.seq: int | None = None
        self.summary: dict[str, Any] | None = None
        self.events: tuple[int, int, int] | None = None
        # push mode: frames may have been lost since a socket joined (hand out a resync)
        self.missed = False

    @classmethod
    async def join(cls, run_id: int, deliver: Deliver) -> None:
        """Hand the run's frames to ``deliver`` from now on: once this returns, no frame of a
        write committed later can miss it, or ``deliver`` is handed a resync when the hub
        could not receive (the channel layer is down) and once it can again."""
        key = (id(asyncio.get_running_loop()), run_id)
        hub = cls.hubs.get(key)
        if hub is None or hub.task.done():
            # A hub whose task ended (it should not) would hand nothing to its sockets again.
            if hub is not None:
                hub.sockets.clear()
            hub = cls.hubs[key] = cls(run_id)
            hub.task = asyncio.ensure_future(hub.listen() if pushes() else hub.follow())
        hub.sockets.append(deliver)
        if hub.ready.is_set():
            return
        waiter = asyncio.ensure_future(hub.ready.wait())
        done, _ = await asyncio.wait([waiter], timeout=HUB_READY_WAIT_S)
        if not done:
            waiter.cancel()
            hub.missed = True

    @classmethod
    def leave(cls, run_id: int, deliver: Deliver) -> None:
        key = (id(asyncio.get_running_loop()), run_id)
        hub = cls.hubs.get(key)
        if hub is None or deliver not in hub.sockets:
            return
        hub.sockets.remove(deliver)
        if not hub.sockets:
            del cls.hubs[key]
            hub.task.cancel()

    def hand_out(self, event: dict[str, Any]) -> None:
        # Encoded once here: hundreds of sockets would otherwise each encode the same frame.
        text = json.dumps(event)
        for deliver in list(self.sockets):
            deliver(event, text)

    async def listen(self) -> None:
        """Push mode: this process's one member of the run's group, through layer outages."""
        layer = get_channel_layer()
        group = run_group(self.run_id)
        channel = await layer.new_channel()

        async def subscribe() -> None:
            await layer.group_add(group, channel)

        try:
            try:
                await subscribe()
            except Exception:  # noqa: BLE001 - waited out below
                logger.warning("live.layer_unavailable", extra={"run_id": self.run_id})
                self.missed = True
                await wait_for_layer(subscribe)
            while True:
                self.ready.set()
                if self.missed:
                    self.missed = False
                    self.hand_out(dict(RESYNC))
                try:
                    message = await layer.receive(channel)
                except Exception:  # noqa: BLE001 - Redis down or restarted: rejoin when back
                    logger.warning("live.layer_unavailable", extra={"run_id": self.run_id})
                    self.missed = True
                    await wait_for_layer(subscribe)
                    continue
                if message.get("type") == "event.message":
                    self.hand_out(message["event"])
        finally:
            try:
                await asyncio.shield(layer.group_discard(group, channel))
            except Exception:  # noqa: BLE001 - a layer that is down forgets the group itself
                logger.warning("live.group_discard_failed", extra={"run_id": self.run_id})

    async def follow(self) -> None:
        """Follow mode: look for the run's new rows (and state) while it has viewers here."""
        while True:
            try:
                for event in await database_sync_to_async(self.look)():
                    self.hand_out(event)
            except Exception:  # a failed look is retried at the next one; the sockets stay
                logger.exception("live.follow_failed", extra={"run_id": self.run_id})
            self.ready.set()
            await asyncio.sleep(FOLLOW_INTERVAL_S)

    def look(self) -> list[dict[str, Any]]:
        """The frames for what changed since the last look (none on the first one)."""
        events: list[dict[str, Any]] = []
        run = Run.objects.filter(pk=self.run_id).first()
        if run is None:
            return events
        summary = run_summary(run)
        if self.summary is not None and summary != self.summary:
            events.append({"type": "run", "run": summary})
        self.summary = summary
        version = events_version(self.run_id)
        if self.events is not None and version != self.events:
            events.append({"type": "events", "version": list(version)})
        self.events = version
        if self.seq is None:
            self.seq = metric_queries.last_seq(self.run_id)
            return events
        rows = list(
            MetricPoint.objects.filter(run_id=self.run_id, id__gt=self.seq)
            .order_by("id")
            .values_list("id", "key", "step", "value", "wall_time", "tokens")[:FOLLOW_MAX_ROWS]
        )
        if rows:
            prev, self.seq = self.seq, rows[-1][0]
            events.insert(0, points_frame(prev, self.seq, columns(r[1:] for r in rows)))
        return events
