"""The disk queue: batches go out in the order they were written, wait while the platform is
away, and one refused for good is set aside with its reason instead of blocking the rest."""

from __future__ import annotations

import json

from crucible_client.spool import Batch, Refused, SendLater, Spool


def points(step: int) -> list[dict]:
    return [{"key": "reward", "step": step, "value": 0.5, "wall_time": 1.0, "tokens": None}]


def test_it_sends_batches_oldest_first_and_removes_them(tmp_path):
    spool = Spool(tmp_path)
    for step in range(3):
        spool.put("http://a/", 7, points(step))
    sent: list[int] = []
    report = spool.drain(lambda batch: sent.append(batch.points[0]["step"]))
    assert sent == [0, 1, 2] and (report.sent, report.left) == (3, 0)
    assert spool.batches() == []


def test_it_keeps_what_must_wait_and_stops_there(tmp_path):
    spool = Spool(tmp_path)
    for step in range(3):
        spool.put("http://a", 7, points(step))
    tried: list[int] = []

    def away(batch: Batch) -> None:
        tried.append(batch.points[0]["step"])
        raise SendLater("connection refused")

    report = spool.drain(away)
    assert tried == [0] and (report.sent, report.left) == (0, 3)
    assert [b.points[0]["step"] for b in spool.batches("http://a", 7)] == [0, 1, 2]


def test_it_sets_a_refused_batch_aside_with_its_reason_and_goes_on(tmp_path):
    spool = Spool(tmp_path)
    spool.put("http://a", 7, points(0))
    spool.put("http://a", 7, points(1))

    def refuse_first(batch: Batch) -> None:
        if batch.points[0]["step"] == 0:
            raise Refused("409: the run has finished")

    report = spool.drain(refuse_first)
    assert (report.sent, report.refused, report.left) == (1, 1, 0)
    aside = json.loads(next((tmp_path / "refused").glob("*.json")).read_text())
    assert aside["reason"] == "409: the run has finished" and aside["points"] == points(0)


def test_it_drains_only_the_platform_and_run_asked_for_and_stores_no_credential(tmp_path):
    spool = Spool(tmp_path)
    spool.put("http://a", 7, points(0))
    spool.put("http://a", 8, points(1))
    spool.put("http://b", 7, points(2))
    assert spool.pending("http://a", 7) == 1 and spool.pending("http://a") == 2
    assert spool.pending() == 3
    for path in tmp_path.glob("*.json"):  # the address and the points: never a credential
        assert set(json.loads(path.read_text())) == {"url", "run_id", "points"}
