"""The client against a live server: typed errors, collections, and a run's socket followed
to its end and caught up with ``?since=`` after a reconnect."""

from __future__ import annotations

import threading
import time

import pytest
import requests
from crucible_client import ApiError, Crucible, Unreachable

from tests.experiments.metrics_setup import make_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_it_raises_the_apis_json_error_naming_the_field(crucible):
    with pytest.raises(ApiError) as missing:
        crucible.families.create({"team": "reasoning", "name": "x"})
    assert missing.value.status == 400
    assert [e["field"] for e in missing.value.errors] == ["kind"]
    with pytest.raises(ApiError) as gone:
        crucible.families.get(999_999)
    assert gone.value.status == 404 and gone.value.codes == ["not_found"]
    with pytest.raises(ApiError) as bad_token:
        Crucible(crucible.url, "crc_not-a-token").teams.list()
    assert bad_token.value.status == 401


def test_it_says_unreachable_when_nothing_answers():
    with pytest.raises(Unreachable) as raised:
        Crucible("http://127.0.0.1:9", "crc_x", retries=0).teams.list()
    assert raised.value.status is None and "unreachable" in str(raised.value)


def test_it_creates_lists_and_reads_families_and_their_pools(crucible, team):
    family = crucible.families.create(
        {"team": team.slug, "name": "Sorting", "kind": "digit-sort", "params": {}}
    )
    assert [f["id"] for f in crucible.families.list(team=team.slug)] == [family["id"]]
    pool = crucible.families.generate(family["id"], {"counts": {"2": 4}, "seed": 0})
    assert [p["id"] for p in crucible.families.versions(family["id"])] == [pool["id"]]
    assert crucible.pools.get(pool["id"])["family"] == family["id"]
    assert [t["slug"] for t in crucible.teams.list()] == [team.slug]


def test_it_pages_through_a_long_list(crucible, team):
    for number in range(3):
        make_run(team, name=f"e{number}")
    runs = list(crucible.runs.iter(team=team.slug, page_size=1))
    assert len(runs) == 3 and len({r["id"] for r in runs}) == 3


def test_it_waits_for_a_run_over_its_socket_until_it_ends(crucible, team):
    run = make_run(team, state="queued")
    ended: list[dict] = []
    waiter = threading.Thread(target=lambda: ended.append(crucible.runs.wait(run.pk)))
    waiter.start()
    time.sleep(1)  # the socket is open: the end arrives as a live run frame, not the history
    crucible.runs.cancel(run.pk)
    waiter.join(timeout=30)
    assert ended and ended[0]["state"] == "cancelled"


def test_it_streams_points_and_catches_up_after_reconnecting(crucible, team, token, server):
    run = make_run(team)
    ingest = f"{server.url}/api/v1/runs/{run.pk}/metrics/"
    headers = {"Authorization": f"Bearer {token}"}
    point = {"key": "reward", "step": 1, "value": 0.1}
    assert requests.post(ingest, json=[point], headers=headers, timeout=10).ok
    stream = crucible.runs.stream(run.pk)
    frames = stream.frames(until_finished=False)
    history = next(f for f in frames if f["type"] == "history")
    assert history["points"]["reward"]["step"] == [1]
    seq = stream.seq
    # Points written while nobody listens arrive through ?since= on the next connection.
    for step in (2, 3):
        body = [{**point, "step": step, "value": step / 10}]
        assert requests.post(ingest, json=body, headers=headers, timeout=10).ok
    caught_up = crucible.runs.stream(run.pk, since=seq)
    steps: list[int] = []
    for frame in caught_up.frames(until_finished=False):
        if frame["type"] in ("points", "history"):
            steps += frame["points"].get("reward", {}).get("step", [])
        if steps[-1:] == [3]:
            break
    assert steps == [2, 3] and caught_up.seq > seq
