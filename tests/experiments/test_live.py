"""What writers publish for the run page, and the frames a socket catches up with."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import channel_layers, get_channel_layer
from django.db import transaction

from crucible.settings.env import redis_channel_layer
from experiments.models import Run, RunState
from experiments.services import live, metrics
from experiments.services.metrics import Point

from .metrics_setup import make_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def layer(redis_url, settings):  # type: ignore[no-untyped-def]
    settings.CHANNEL_LAYERS = {"default": redis_channel_layer(redis_url)}
    channel_layers.backends.clear()
    yield get_channel_layer()
    channel_layers.backends.clear()


class Listener:
    """A channel in some groups, read synchronously."""

    def __init__(self, layer, *groups: str) -> None:  # type: ignore[no-untyped-def]
        self.layer = layer
        # A plain channel name: the layer's own "specific!" channels are read by one event
        # loop, and each synchronous read here runs in a loop of its own.
        self.channel = f"test-listener-{uuid.uuid4().hex}"
        for group in groups:
            async_to_sync(layer.group_add)(group, self.channel)

    def next(self, timeout: float = 5) -> dict:
        async def receive() -> dict:
            return await asyncio.wait_for(self.layer.receive(self.channel), timeout)

        return async_to_sync(receive)()

    def nothing(self, timeout: float = 0.3) -> bool:
        try:
            self.next(timeout)
        except TimeoutError:
            return True
        return False


def batch(steps) -> list[Point]:
    return [Point("kl", s, 0.1 * s, 1000.0 + s, None) for s in steps]


def test_it_publishes_a_write_to_the_runs_group_once_it_commits(team, layer):
    run = make_run(team)
    listener = Listener(layer, live.run_group(run.pk))
    with transaction.atomic():
        written = metrics.write_points(run, batch(range(3)))
        assert listener.nothing(), "a write that may still roll back is not shown"
    message = listener.next()
    assert message["type"] == "event.message" and message["group"] == f"run.{run.pk}"
    assert message["event"] == {
        "type": "points",
        "prev": 0,
        "seq": written.seq,
        "points": {
            "kl": {
                "step": [0, 1, 2],
                "value": [0.0, 0.1, 0.2],
                "wall_time": [1000.0, 1001.0, 1002.0],
                "tokens": [None, None, None],
            }
        },
    }


def test_it_publishes_only_changed_points_and_names_the_replacements(team, layer):
    run = make_run(team)
    first = metrics.write_points(run, batch(range(3)))
    listener = Listener(layer, live.run_group(run.pk))
    # Steps 0 and 2 again as stored, step 1 with another value, step 3 new.
    written = metrics.write_points(run, [*batch([0, 2, 3]), Point("kl", 1, 9.0, 2000.0, None)])
    event = listener.next()["event"]
    assert (event["prev"], event["seq"]) == (first.seq, written.seq)
    assert event["points"]["kl"]["step"] == [1, 3] and event["points"]["kl"]["value"][0] == 9.0
    assert event["replaced"] == {"kl": [1]}
    metrics.write_points(run, batch([0, 2, 3]))  # a retried batch: nothing changes
    assert listener.nothing()


def test_it_publishes_nothing_for_a_write_that_rolls_back(team, layer):
    run = make_run(team)
    listener = Listener(layer, live.run_group(run.pk))
    with pytest.raises(RuntimeError), transaction.atomic():
        metrics.write_points(run, batch(range(3)))
        raise RuntimeError("the step failed")
    assert listener.nothing()


def test_it_publishes_run_changes_to_the_run_page_and_the_teams_pages(team, layer):
    run = make_run(team)
    listener = Listener(layer, live.run_group(run.pk), f"team.{team.pk}")
    Run.objects.filter(pk=run.pk).update(state=RunState.FAILED, failure_reason="out of memory")
    live.run_changed(Run.objects.get(pk=run.pk))
    events = {m["group"]: m["event"] for m in (listener.next(), listener.next())}
    summary = {
        "id": run.pk,
        "state": "failed",
        "step": 0,
        "max_steps": 0,
        "failure_reason": "out of memory",
        "pause_requested": False,
        "pause_reason": "",
        "worker_seconds": 0.0,
        "generated_tokens": 0,
        "judge_tokens": 0,
        "cost": 0.0,
        # The API's shape before the first check: a page merging the frame keeps a list.
        "health": {"step": None, "signals": []},
    }
    assert events[f"run.{run.pk}"] == {"type": "run", "run": summary}
    assert events[f"team.{team.pk}"] == {"type": "run.changed", **summary}


def test_it_publishes_no_points_where_sockets_follow_the_database(team, settings, monkeypatch):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    sent = []
    monkeypatch.setattr(live, "publish", lambda *args: sent.append(args))
    metrics.write_points(make_run(team), batch(range(3)))
    assert not live.pushes() and sent == []


def test_it_catches_up_with_points_or_with_a_new_history_when_too_much_came_after(
    team, monkeypatch
):
    run = make_run(team)
    first = metrics.write_points(run, batch(range(10)))
    second = metrics.write_points(run, batch(range(10, 15)))
    frame = live.catch_up_frame(run.pk, first.seq, max_points=100)
    assert (frame["type"], frame["prev"], frame["seq"]) == ("points", first.seq, second.seq)
    assert frame["points"]["kl"]["step"] == list(range(10, 15))
    monkeypatch.setattr(live, "CATCH_UP_MAX_POINTS", 3)
    frame = live.catch_up_frame(run.pk, first.seq, max_points=4)
    assert frame["type"] == "history" and frame["seq"] == second.seq
    assert frame["points"]["kl"]["total"] == 15 and len(frame["points"]["kl"]["step"]) <= 4


def test_it_merges_frames_with_the_later_value_of_a_repeated_step():
    early = live.columns([("kl", 2, 1.0, 10.0, None), ("kl", 1, 0.5, 9.0, None)])
    late = live.columns([("kl", 2, 7.0, 11.0, 5)])
    assert live.merge_columns([early, late]) == {
        "kl": {"step": [1, 2], "value": [0.5, 7.0], "wall_time": [9.0, 11.0], "tokens": [None, 5]}
    }
