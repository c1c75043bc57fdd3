"""The client against a live server: typed errors, collections, and a run's socket followed
to its end and caught up with ``?since=`` after a reconnect."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import requests
from crucible_client import ApiError, Crucible, Unreachable
from crucible_client.uploads import describe

from tests.experiments.metrics_setup import make_run
from training import tiny_models

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


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    return tiny_models.build("qwen2", tmp_path_factory.mktemp("outside") / "model", vocab_size=300)


def test_an_outside_run_logs_uploads_a_checkpoint_is_found_and_finished(
    crucible, team, model_dir
):
    run = crucible.runs.init(
        team.slug, name="trl sweep", params={"lr": 0.001}, tags={"stage": "sweep"},
        base_model="tiny-qwen2",
    )  # fmt: skip
    with crucible.runs.logger(run["id"], flush_interval_s=0) as logger:
        for step in range(1, 4):
            logger.log(step, {"reward/mean": step / 4})
    assert logger.pending == 0
    checkpoint = crucible.runs.upload_checkpoint(run["id"], model_dir, 3, progress=False)
    assert checkpoint["step"] == 3
    assert [c["id"] for c in crucible.runs.checkpoints(run["id"])] == [checkpoint["id"]]
    found = crucible.runs.search("metrics.reward/mean > 0.5 and tags.stage = sweep")
    assert [r["id"] for r in found] == [run["id"]]
    assert crucible.runs.search("params.lr = 0.01") == []
    assert crucible.runs.finish(run["id"], "finished")["state"] == "succeeded"


def test_an_interrupted_upload_resumes_from_what_the_server_holds(crucible, team, model_dir):
    run = crucible.runs.init(team.slug, name="resumed upload")
    files = describe(model_dir)
    body = {"step": 5, "files": files}
    upload = crucible.http.post(f"/api/v1/runs/{run['id']}/checkpoint-uploads/", body)
    first = max(files, key=lambda f: f["size"])  # a first chunk arrives, then the script dies
    crucible.http.json(
        "PUT", f"/api/v1/checkpoint-uploads/{upload['id']}/files/",
        params={"path": first["path"], "offset": 0},
        data=(model_dir / first["path"]).read_bytes()[:1000],
        headers={"Content-Type": "application/octet-stream"},
    )  # fmt: skip
    checkpoint = crucible.runs.upload_checkpoint(
        run["id"], model_dir, 5, chunk_bytes=64 * 1024, progress=False
    )
    assert checkpoint["step"] == 5
    assert crucible.http.get(f"/api/v1/checkpoint-uploads/{upload['id']}/")["checkpoint"] == (
        checkpoint["id"]
    )  # the upload begun before is the one completed
