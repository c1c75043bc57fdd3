"""The run page's websocket, through the full ASGI application, in both of its modes.

Push (channels-redis, production): writers publish every committed write to the run's group.
Follow (the in-memory layer, the embedded default): the web process reads new rows itself.
"""

from __future__ import annotations

import asyncio
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.db import connection

from crucible.accounts import services
from crucible.accounts.models import Membership
from crucible.asgi import application
from crucible.settings.env import redis_channel_layer
from experiments import consumers
from experiments.models import MetricPoint, Run, RunState
from experiments.services import live, metrics
from experiments.services.metrics import Point
from tests.websockets import close_code

from .metrics_setup import make_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
ORIGIN = [(b"origin", b"http://127.0.0.1:8000")]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def push_mode(redis_url, settings):  # type: ignore[no-untyped-def]
    settings.CHANNEL_LAYERS = {"default": redis_channel_layer(redis_url)}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def follow_mode(settings):  # type: ignore[no-untyped-def]
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def fast_frames(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(consumers, "FRAME_INTERVAL_S", 0.2)


def batch(key: str, steps, value: float = 0.5) -> list[Point]:
    return [Point(key, s, value, 1_700_000_000.0 + s, 10 * s) for s in steps]


write = database_sync_to_async(metrics.write_points)


@database_sync_to_async
def setup_run(user, team, state=RunState.RUNNING):  # type: ignore[no-untyped-def]
    run = make_run(team, state=state)
    return run, services.create_token(user, "ws").secret


async def open_socket(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def watch(run: Run, secret: str, query: str = "") -> tuple[WebsocketCommunicator, dict]:
    """An open socket on the run past its hello, and the first frame it sent."""
    communicator = await open_socket(f"/ws/runs/{run.pk}/?token={secret}{query}")
    assert (await communicator.receive_json_from(timeout=5))["type"] == "hello"
    return communicator, await communicator.receive_json_from(timeout=5)


class Held:
    """What a client holds: points by (key, step), and the last seq, checked frame by frame."""

    def __init__(self, history: dict) -> None:
        assert history["type"] == "history"
        self.seq = history["seq"]
        self.points = {}
        self.frames = 0
        self.add(history["points"])

    def add(self, points: dict) -> None:
        for key, cols in points.items():
            for step, value in zip(cols["step"], cols["value"], strict=True):
                self.points[(key, step)] = value

    def take(self, frame: dict) -> None:
        assert frame["type"] == "points", frame
        assert frame["prev"] == self.seq, "a gap or a repeat between frames"
        assert frame["seq"] > self.seq
        self.seq = frame["seq"]
        self.frames += 1
        self.add(frame["points"])

    async def until(
        self, communicator: WebsocketCommunicator, seq: int, timeout: float = 5
    ) -> None:
        while self.seq < seq:
            self.take(await communicator.receive_json_from(timeout=timeout))


@database_sync_to_async
def stored(run: Run) -> dict:
    rows = MetricPoint.objects.filter(run=run).values_list("key", "step", "value")
    return {(k, s): v for k, s, v in rows}


# --- access ---------------------------------------------------------------------------------


async def test_it_closes_a_socket_without_credentials_with_4401(owner, team):
    run, _ = await setup_run(owner, team)
    communicator = await open_socket(f"/ws/runs/{run.pk}/")
    assert await close_code(communicator) == 4401


async def test_it_closes_a_socket_on_another_teams_run_with_4403(owner, team, outsider):
    run, _ = await setup_run(owner, team)
    secret = await database_sync_to_async(lambda: services.create_token(outsider, "ws").secret)()
    for run_id in (run.pk, run.pk + 1000):  # another team's run, and no run at all
        communicator = await open_socket(f"/ws/runs/{run_id}/?token={secret}")
        assert await close_code(communicator) == 4403


async def test_it_cuts_off_a_member_removed_from_the_runs_team(owner, team, teammate, push_mode):
    run, _ = await setup_run(owner, team)
    secret = await database_sync_to_async(lambda: services.create_token(teammate, "ws").secret)()
    communicator, _ = await watch(run, secret)
    membership = await database_sync_to_async(Membership.objects.get)(user=teammate, team=team)
    await database_sync_to_async(services.remove_member)(owner, membership)
    assert await close_code(communicator) == 4403


# --- push mode ------------------------------------------------------------------------------


async def test_it_sends_the_history_then_live_points_without_gaps_or_repeats(
    owner, team, push_mode, fast_frames
):
    run, secret = await setup_run(owner, team)
    await write(run, batch("kl", range(5)))
    communicator, history = await watch(run, secret)
    held = Held(history)
    assert history["keys"] == ["kl"] and history["run"]["state"] == "running"
    assert held.points == {("kl", s): 0.5 for s in range(5)}
    last = None
    for start in range(5, 30, 5):
        last = await write(run, batch("reward/mean", range(start, start + 5)))
    await held.until(communicator, last.seq)
    assert held.points == await stored(run)
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()


async def test_it_coalesces_a_fast_run_into_a_few_frames(owner, team, push_mode):
    run, secret = await setup_run(owner, team)
    communicator, history = await watch(run, secret)
    held = Held(history)
    last, started = None, time.monotonic()
    for step in range(20):
        last = await write(run, batch("kl", [step]))
    writing_s = time.monotonic() - started
    await held.until(communicator, last.seq)
    assert len(held.points) == 20
    # One frame at once, then at most one per interval while the writes last, and the rest.
    assert held.frames <= 2 + math.ceil(writing_s / consumers.FRAME_INTERVAL_S) < 20
    await communicator.disconnect()


async def test_it_recovers_a_lost_frame_from_the_database(
    owner, team, push_mode, fast_frames, monkeypatch
):
    run, secret = await setup_run(owner, team)
    communicator, history = await watch(run, secret)
    held = Held(history)
    with monkeypatch.context() as lost:
        lost.setattr(live, "points_written", lambda *args: None)
        await write(run, batch("kl", range(3)))
    last = await write(run, batch("kl", range(3, 6)))
    await held.until(communicator, last.seq)
    assert held.points == await stored(run) and len(held.points) == 6
    await communicator.disconnect()


async def test_it_sends_a_rewritten_point_again(owner, team, push_mode, fast_frames):
    run, secret = await setup_run(owner, team)
    await write(run, batch("kl", range(3)))
    communicator, history = await watch(run, secret)
    held = Held(history)
    last = await write(run, batch("kl", [1], value=9.0))
    await held.until(communicator, last.seq)
    assert held.points[("kl", 1)] == 9.0
    await communicator.disconnect()


async def test_it_does_not_send_a_resent_point_again_and_marks_a_replaced_one(
    owner, team, push_mode, fast_frames
):
    run, secret = await setup_run(owner, team)
    await write(run, batch("kl", range(3)))
    communicator, history = await watch(run, secret)
    held = Held(history)
    await write(run, batch("kl", range(3)))  # a resent batch, values unchanged
    last = await write(run, [*batch("kl", [1], value=9.0), *batch("kl", [3])])
    frame = await communicator.receive_json_from(timeout=5)
    held.take(frame)
    assert held.seq == last.seq
    assert frame["points"]["kl"]["step"] == [1, 3] and frame["replaced"] == {"kl": [1]}
    assert held.points == await stored(run)
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()


async def test_it_pauses_and_resumes_from_the_clients_sequence_number(
    owner, team, push_mode, fast_frames
):
    run, secret = await setup_run(owner, team)
    communicator, history = await watch(run, secret)
    held = Held(history)
    await communicator.send_json_to({"type": "pause"})
    assert await communicator.receive_json_from(timeout=5) == {"type": "paused", "seq": held.seq}
    await write(run, batch("kl", range(3)))
    last = await write(run, batch("kl", range(3, 6)))
    assert await communicator.receive_nothing(timeout=0.6), "a paused socket sends nothing"
    await database_sync_to_async(Run.objects.filter(pk=run.pk).update)(step=6)
    await communicator.send_json_to({"type": "resume", "since": held.seq})
    held.take(await communicator.receive_json_from(timeout=5))
    assert held.seq == last.seq and held.points == await stored(run)
    run_now = await communicator.receive_json_from(timeout=5)
    assert run_now["type"] == "run" and run_now["run"]["step"] == 6
    later = await write(run, batch("kl", [6]))
    await held.until(communicator, later.seq)
    await communicator.send_json_to({"type": "resume", "since": "soon"})
    assert (await communicator.receive_json_from(timeout=5))["type"] == "error"
    await communicator.disconnect()


async def test_it_answers_a_reconnect_with_what_came_after_its_sequence_number(
    owner, team, push_mode
):
    run, secret = await setup_run(owner, team)
    first = await write(run, batch("kl", range(3)))
    await write(run, batch("kl", range(3, 5)))
    communicator, frame = await watch(run, secret, f"&since={first.seq}")
    assert frame["type"] == "points" and frame["prev"] == first.seq
    assert frame["points"]["kl"]["step"] == [3, 4]
    assert frame["points"]["kl"]["tokens"] == [30, 40]
    # The run as it is now: its state may have changed while the client was away.
    state = await communicator.receive_json_from(timeout=5)
    assert state["type"] == "run" and state["run"]["id"] == run.pk
    await communicator.disconnect()


async def test_it_names_in_a_catch_up_the_steps_whose_stored_value_changed(
    owner, team, push_mode
):
    run, secret = await setup_run(owner, team)
    first = await write(run, batch("kl", range(4)))
    await write(run, batch("kl", [2, 4], value=0.9))  # step 2 recomputed to another value
    communicator, frame = await watch(run, secret, f"&since={first.seq}")
    assert frame["points"]["kl"]["step"] == [2, 4]
    assert frame["replaced"] == {"kl": [2]}  # the client holds step 2's old value
    await communicator.disconnect()


async def test_it_forwards_state_changes_and_the_last_points_of_a_finished_run(
    owner, team, push_mode, fast_frames, monkeypatch
):
    run, secret = await setup_run(owner, team)
    communicator, history = await watch(run, secret)
    held = Held(history)
    with monkeypatch.context() as lost:
        lost.setattr(live, "points_written", lambda *args: None)
        await write(run, batch("kl", range(3)))

    @database_sync_to_async
    def finish() -> None:
        Run.objects.filter(pk=run.pk).update(state=RunState.SUCCEEDED, step=3)
        live.run_changed(Run.objects.get(pk=run.pk))

    await finish()
    changed = await communicator.receive_json_from(timeout=5)
    assert changed["type"] == "run" and changed["run"]["state"] == "succeeded"
    held.take(await communicator.receive_json_from(timeout=5))
    assert len(held.points) == 3
    await communicator.disconnect()


# --- follow mode ----------------------------------------------------------------------------


async def test_it_follows_new_rows_when_the_channel_layer_cannot_reach_the_writer(
    owner, team, follow_mode, fast_frames
):
    run, secret = await setup_run(owner, team)
    await write(run, batch("kl", range(2)))
    communicator, history = await watch(run, secret)
    held = Held(history)
    last = None
    for start in range(2, 12, 2):
        last = await write(run, batch("kl", range(start, start + 2)))
        await asyncio.sleep(0.1)
    await held.until(communicator, last.seq)
    assert held.points == await stored(run)
    await database_sync_to_async(Run.objects.filter(pk=run.pk).update)(state=RunState.CANCELLED)
    changed = await communicator.receive_json_from(timeout=5)
    assert changed == {"type": "run", "run": {**history["run"], "state": "cancelled"}}
    await communicator.disconnect()
    assert not live.RunHub.hubs, "nobody watches: nothing reads the database"


async def test_it_replaces_a_hub_whose_task_has_ended(owner, team, push_mode, fast_frames):
    run, secret = await setup_run(owner, team)
    # What an outage used to leave behind: a registered hub whose listening task is over.
    dead = live.RunHub(run.pk)
    dead.task = asyncio.ensure_future(asyncio.sleep(0))
    await dead.task
    dead.ready.set()
    live.RunHub.hubs[(id(asyncio.get_running_loop()), run.pk)] = dead
    communicator, history = await watch(run, secret)
    held = Held(history)
    last = await write(run, batch("kl", range(2)))
    await held.until(communicator, last.seq)
    await communicator.disconnect()
    assert not live.RunHub.hubs


@pytest.mark.parametrize("mode", ["push_mode", "follow_mode"])
async def test_it_receives_a_run_once_per_process_for_all_its_viewers(
    owner, team, mode, request, fast_frames
):
    request.getfixturevalue(mode)
    run, secret = await setup_run(owner, team)
    sockets = [(await watch(run, secret))[0] for _ in range(3)]
    assert len(live.RunHub.hubs) == 1
    assert len(next(iter(live.RunHub.hubs.values())).sockets) == 3
    last = await write(run, batch("kl", range(4)))
    for communicator in sockets:
        frame = await communicator.receive_json_from(timeout=5)
        assert frame["seq"] == last.seq and frame["points"]["kl"]["step"] == [0, 1, 2, 3]
    for communicator in sockets:
        await communicator.disconnect()
    assert not live.RunHub.hubs


@pytest.mark.slow
async def test_it_streams_points_a_worker_process_writes_in_the_embedded_default(
    owner, team, follow_mode
):
    # The embedded default: another process (the worker) writes with an in-memory layer of
    # its own, which cannot reach this one; the socket still gets every point.
    if connection.vendor != "postgresql":
        pytest.skip("the worker process reaches the test database by its URL")
    run, secret = await setup_run(owner, team)
    communicator, history = await watch(run, secret)
    held = Held(history)
    script = (
        "import django; django.setup()\n"
        "import time\n"
        "from experiments.models import Run\n"
        "from experiments.services.metrics import Point, record_points\n"
        f"run = Run.objects.get(pk={run.pk})\n"
        "for step in range(6):\n"
        "    record_points(run, [Point('reward/mean', step, step / 10, time.time(), None)])\n"
        "    time.sleep(0.15)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    db = connection.settings_dict
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env["DJANGO_SETTINGS_MODULE"] = "crucible.settings.test"
    await asyncio.to_thread(
        subprocess.run, [sys.executable, "-c", script], cwd=ROOT, env=env, check=True, timeout=60
    )
    await held.until(
        communicator, await database_sync_to_async(live.metric_queries.last_seq)(run.pk)
    )
    assert len(held.points) == 6 and held.points == await stored(run)
    await communicator.disconnect()
