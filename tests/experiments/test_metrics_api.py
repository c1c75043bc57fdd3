"""The metrics endpoints: batch ingest with per-item verdicts and limits, the chart query and
raw pages, scoped to the caller's teams."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from crucible.accounts import services
from experiments.ingest import MAX_POINTS_PER_BATCH
from experiments.models import MetricPoint, RunState
from experiments.services import metrics
from experiments.services.metrics import Point

from .metrics_setup import make_run

pytestmark = pytest.mark.django_db


def url(run, suffix: str = "") -> str:
    return f"/api/v1/runs/{run.pk}/metrics/{suffix}"


def post(client: APIClient, run, items) -> object:
    return client.post(url(run), items, format="json")


def stored(run) -> dict:
    rows = MetricPoint.objects.filter(run=run).values_list("key", "step", "value", "tokens")
    return {(k, s): (v, t) for k, s, v, t in rows}


@pytest.fixture
def run(team):  # type: ignore[no-untyped-def]
    return make_run(team)


# --- ingest ---------------------------------------------------------------------------------


def test_it_records_a_batch_and_answers_a_verdict_per_item(api, run):
    items = [
        {"key": "reward/mean", "step": 1, "value": 0.25, "wall_time": 10.0, "tokens": 64},
        {"key": "kl", "step": 1, "value": None},
    ]
    response = post(api, run, items)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["accepted"], body["refused"]) == (2, 0)
    assert body["results"] == [
        {"index": 0, "status": "accepted", "errors": []},
        {"index": 1, "status": "accepted", "errors": []},
    ]
    assert body["seq"] == MetricPoint.objects.filter(run=run).latest("id").id
    assert stored(run) == {("reward/mean", 1): (0.25, 64), ("kl", 1): (None, None)}


def test_it_refuses_bad_items_by_name_and_keeps_the_good_ones(api, run):
    items = [
        {"key": "kl", "step": 0, "value": 0.1},
        {"key": "bad,key", "step": 0, "value": 0.1},
        {"key": "kl", "step": -1, "value": 0.1},
        {"key": "kl", "step": 2, "value": "high"},
        "kl=0.3",
    ]
    response = post(api, run, items)
    assert response.status_code == 207
    body = response.json()
    assert (body["accepted"], body["refused"]) == (1, 4)
    refused = {r["index"]: r["errors"][0] for r in body["results"] if r["status"] == "refused"}
    assert {i: (e["field"], e["code"]) for i, e in refused.items()} == {
        1: ("key", "invalid"),
        2: ("step", "min_value"),
        3: ("value", "invalid"),
        4: (None, "invalid"),
    }
    assert "got -1" in refused[2]["message"]
    assert stored(run) == {("kl", 0): (0.1, None)}


def test_it_overwrites_a_retried_batch_and_takes_steps_out_of_order(api, run):
    batch = [{"key": "kl", "step": s, "value": float(s)} for s in (5, 2, 9)]
    assert post(api, run, batch).status_code == 200
    retried = [{**item, "value": item["value"] + 100} for item in batch]
    assert post(api, run, retried).status_code == 200
    assert stored(run) == {("kl", s): (s + 100.0, None) for s in (2, 5, 9)}


def test_it_refuses_more_than_a_thousand_points_with_413(api, run):
    items = [{"key": "kl", "step": s, "value": 0.0} for s in range(MAX_POINTS_PER_BATCH + 1)]
    response = post(api, run, items)
    assert response.status_code == 413
    error = response.json()["errors"][0]
    assert error["code"] == "too_large" and "1001 points" in error["message"]
    assert "limit is 1000" in error["message"]
    assert not MetricPoint.objects.filter(run=run).exists()


def test_it_refuses_a_body_over_one_megabyte_with_413(api, run):
    items = [{"key": "k" * 100, "step": s, "value": 0.0, "wall_time": 1.5} for s in range(900)]
    padded = json.dumps(items) + " " * (1024 * 1024)
    response = api.post(url(run), padded, content_type="application/json")
    assert response.status_code == 413
    assert "1.0 MB" in response.json()["errors"][0]["message"]


def test_it_wants_a_list_of_points(api, run):
    response = post(api, run, {"points": []})
    assert response.status_code == 400
    assert "list of points" in response.json()["errors"][0]["message"]


def test_it_refuses_writes_to_a_finished_run_naming_its_state(api, team):
    finished = make_run(team, state=RunState.CANCELLED)
    response = post(api, finished, [{"key": "kl", "step": 0, "value": 0.0}])
    assert response.status_code == 409
    error = response.json()["errors"][0]
    assert error["code"] == "run_finished" and "cancelled" in error["message"]


def test_it_needs_the_editor_role_to_write(client_for, run, teammate, editor):
    item = [{"key": "kl", "step": 0, "value": 0.0}]
    viewer = post(client_for(teammate), run, item)
    assert viewer.status_code == 403 and "editor" in viewer.json()["errors"][0]["message"]
    assert post(client_for(editor), run, item).status_code == 200


def test_it_takes_an_api_token_as_outside_trainers_do(editor, team, run):
    secret = services.create_token(editor, "trainer", team=team).secret
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert post(client, run, [{"key": "kl", "step": 0, "value": 0.0}]).status_code == 200


def test_it_hides_another_teams_run(client_for, outsider, run):
    client = client_for(outsider)
    assert post(client, run, [{"key": "kl", "step": 0, "value": 0.0}]).status_code == 404
    assert client.get(url(run)).status_code == 404
    assert client.get(url(run, "raw/"), {"key": "kl"}).status_code == 404
    assert APIClient().get(url(run)).status_code == 401


# --- query ----------------------------------------------------------------------------------


def write(run, key: str, steps, value=lambda s: float(s)) -> int:
    points = [Point(key, s, value(s), 1000.0 + s, 8 * s) for s in steps]
    return metrics.write_points(run, points).seq


def test_it_answers_each_key_in_columns_with_the_runs_keys_and_seq(api, run):
    write(run, "kl", range(3))
    seq = write(run, "reward/mean", range(2))
    body = api.get(url(run), {"keys": "kl"}).json()
    assert body["seq"] == seq and body["state"] == "running"
    assert body["keys"] == ["kl", "reward/mean"]
    assert body["points"] == {
        "kl": {
            "step": [0, 1, 2],
            "value": [0.0, 1.0, 2.0],
            "wall_time": [1000.0, 1001.0, 1002.0],
            "tokens": [0, 8, 16],
            "total": 3,
            "downsampled": False,
        }
    }
    both = api.get(url(run), {"keys": ["kl", "reward/mean"]}).json()
    assert set(both["points"]) == {"kl", "reward/mean"}


def test_it_downsamples_long_series_and_keeps_full_resolution_on_request(api, run):
    write(run, "kl", range(1000), value=lambda s: 50.0 if s == 777 else 0.0)
    small = api.get(url(run), {"max_points": 50}).json()["points"]["kl"]
    assert len(small["step"]) <= 50 and small["downsampled"] and small["total"] == 1000
    assert 777 in small["step"], "a spike survives downsampling"
    full = api.get(url(run), {"max_points": 0}).json()["points"]["kl"]
    assert full["step"] == list(range(1000)) and not full["downsampled"]


def test_it_answers_what_came_after_a_sequence_number(api, run):
    seq = write(run, "kl", range(3))
    later = write(run, "kl", [3, 1], value=lambda s: s + 0.5)
    body = api.get(url(run), {"since": seq}).json()
    assert body["seq"] == later and body["points"]["kl"]["step"] == [1, 3]
    assert api.get(url(run), {"since": later}).json()["points"] == {}


def test_it_does_not_answer_a_resent_batch_again_after_its_sequence_number(api, run):
    batch = [{"key": "kl", "step": s, "value": s / 2} for s in range(3)]
    first = post(api, run, batch).json()
    resent = post(api, run, batch).json()
    assert (resent["accepted"], resent["seq"]) == (3, first["seq"])
    assert api.get(url(run), {"since": first["seq"]}).json()["points"] == {}


def test_it_names_the_bad_query_parameter(api, run):
    for params, field in [({"max_points": -1}, "max_points"), ({"since": "x"}, "since")]:
        response = api.get(url(run), params)
        assert response.status_code == 400
        assert response.json()["errors"][0]["field"] == field


def test_it_pages_through_one_key_at_full_resolution(api, run, teammate, client_for):
    write(run, "kl", range(25))
    client = client_for(teammate)  # reading needs only membership
    first = client.get(url(run, "raw/"), {"key": "kl", "limit": 10}).json()
    assert first["points"]["step"] == list(range(10)) and first["next_after_step"] == 9
    steps = list(first["points"]["step"])
    after = first["next_after_step"]
    while after is not None:
        page = client.get(url(run, "raw/"), {"key": "kl", "limit": 10, "after_step": after}).json()
        steps += page["points"]["step"]
        after = page["next_after_step"]
    assert steps == list(range(25))
    missing = client.get(url(run, "raw/"))
    assert missing.status_code == 400 and missing.json()["errors"][0]["field"] == "key"


def test_it_documents_the_endpoints_with_typed_bodies():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    ingest = schema["paths"]["/api/v1/runs/{run_id}/metrics/"]["post"]
    assert set(ingest["responses"]) >= {"200", "207", "409", "413"}
    assert ingest["requestBody"]["content"]["application/json"]["schema"]["type"] == "array"
    query = schema["paths"]["/api/v1/runs/{run_id}/metrics/"]["get"]
    assert {p["name"] for p in query["parameters"]} >= {"keys", "max_points", "since"}
    assert "/api/v1/runs/{run_id}/metrics/raw/" in schema["paths"]
