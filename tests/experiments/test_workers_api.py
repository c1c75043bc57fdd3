"""GET /api/v1/workers/ and /api/v1/models/: what workers report, for a member of any team."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from experiments.catalogue import TINY_MODEL
from experiments.models import Worker

pytestmark = pytest.mark.django_db


QWEN_INFO = {
    "architecture": "Qwen2ForCausalLM",
    "dtype": "bfloat16",
    "context_length": 32768,
    "chat_template": True,
}


def entry(name: str) -> dict:
    """A heartbeat's entry: the org/qwen one described, the others as a worker that reported
    before models were described lists them."""
    builtin = name == TINY_MODEL
    info = QWEN_INFO if name == "org/qwen" else {}
    return {"name": name, "path": name, "builtin": builtin, "parameters": 7, "ready": True, **info}


@pytest.fixture
def workers_seen(settings):
    settings.RUN_STALE_SECONDS = 60
    devices = {
        "cuda": 1,
        "names": ["NVIDIA H200"],
        "gpu_memory": [141 * 2**30],
        "cpu": 16,
        "memory": 128 * 2**30,
    }
    Worker.objects.create(
        name="celery@gpu-1",
        queues=["cpu", "gpu"],
        loadable=[entry(TINY_MODEL), entry("org/qwen")],
        devices=devices,
        pid=4242,
    )
    Worker.objects.create(
        name="celery@old",
        queues=["gpu"],
        loadable=[entry("ghost")],
        devices=devices,
        heartbeat_at=timezone.now() - timedelta(hours=1),
    )


def test_it_lists_workers_with_what_they_report_to_a_member_of_any_team(
    client_for, outsider, workers_seen
):
    response = client_for(outsider).get("/api/v1/workers/")
    assert response.status_code == 200
    body = response.json()
    assert [(w["name"], w["running"]) for w in body] == [
        ("celery@gpu-1", True),
        ("celery@old", False),
    ]
    assert body[0]["devices"] == {
        "cuda": 1,
        "names": ["NVIDIA H200"],
        "gpu_memory": [141 * 2**30],
        "cpu": 16,
        "memory": 128 * 2**30,
    }
    assert body[0]["loadable"][1] == entry("org/qwen")
    assert body[0]["loadable"][0] == {**entry(TINY_MODEL), **dict.fromkeys(QWEN_INFO)}
    assert "pid" not in body[0]


def test_it_offers_the_models_of_running_workers(api, team, workers_seen):
    body = api.get("/api/v1/models/").json()
    assert [m["name"] for m in body["models"]] == [TINY_MODEL, "org/qwen"]
    assert body["models"][1] == {**entry("org/qwen"), "workers": ["celery@gpu-1"]}
    assert body["workers"] == 1 and body["detail"] == ""


def test_it_says_no_worker_is_running_when_none_is(api, team):
    body = api.get("/api/v1/models/", {"queue": "cpu"}).json()
    assert body["models"] == [] and body["workers"] == 0
    assert body["detail"].startswith("No worker is running on the cpu queue")


def test_it_refuses_an_unknown_queue_naming_the_parameter(api, team):
    response = api.get("/api/v1/models/", {"queue": "tpu"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "queue"


def test_it_asks_anonymous_callers_to_sign_in(client_for):
    for path in ("/api/v1/workers/", "/api/v1/models/"):
        response = client_for(None).get(path)
        assert response.status_code == 401 and "errors" in response.json()


def test_it_lists_a_worker_that_has_not_reported_its_devices_yet(api, team):
    Worker.objects.create(name="celery@new", queues=["gpu"])
    response = api.get("/api/v1/workers/")
    assert response.status_code == 200
    (worker,) = response.json()
    assert worker["devices"] == {"cuda": 0, "names": [], "gpu_memory": [], "cpu": 0, "memory": None}
