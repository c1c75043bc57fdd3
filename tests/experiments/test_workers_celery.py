"""A real Celery worker process advertises itself, reaps an orphaned run, and says it stopped.

Needs PostgreSQL and Redis: the worker is another process reaching the same test database
and broker as this one.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from experiments.catalogue import TINY_MODEL
from experiments.models import Experiment, Run, RunState, Worker
from tests.conftest import celery_worker, need_service
from training import digits
from training.models import build_tiny_model, save_model, train_tokenizer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def database_url() -> str:
    if connection.vendor != "postgresql":
        need_service("the worker needs the test database on PostgreSQL (DATABASE_URL)")
    s = connection.settings_dict
    return (
        f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:"
        f"{s['PORT'] or 5432}/{s['NAME']}"
    )


def wait_for(condition: Callable[[], bool], process, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if process.poll() is not None:
            pytest.fail(process.stdout.read().decode()[-3000:])
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_it_beats_reaps_and_says_it_stopped(redis_url, tmp_path, owner, team):
    import redis

    broker = redis.Redis.from_url(redis_url)
    broker.delete("gpu")
    models = tmp_path / "models"
    tokenizer = train_tokenizer(digits.corpus(100))
    save_model(build_tiny_model(tokenizer, 1, 16), tokenizer, models / "small")
    experiment = Experiment.objects.create(team=team, name="e", config={}, config_hash="x")
    long_ago = timezone.now() - timedelta(minutes=10)
    orphan = Run.objects.create(
        experiment=experiment,
        team=team,
        number=1,
        state=RunState.RUNNING,
        worker="celery@killed",
        started_at=long_ago,
        heartbeat_at=long_ago,
    )
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CRUCIBLE_VAR_DIR": str(tmp_path),
        "CRUCIBLE_MODELS_DIR": str(models),
        "WORKER_HEARTBEAT_SECONDS": "1",
        "RUN_STALE_SECONDS": "30",
        "DJANGO_SETTINGS_MODULE": "crucible.settings.base",
    }

    with celery_worker(env, queues="cpu") as process:
        wait_for(lambda: Worker.objects.exists(), process)
        worker = Worker.objects.get()
        assert worker.queues == ["cpu"] and worker.stopped_at is None
        assert [m["name"] for m in worker.loadable] == [TINY_MODEL, "small"]
        assert worker.devices["cpu"] >= 1
        wait_for(lambda: Run.objects.get(pk=orphan.pk).state == RunState.QUEUED, process)
        first_beat = worker.heartbeat_at
        wait_for(lambda: Worker.objects.get().heartbeat_at > first_beat, process)

    assert Worker.objects.get().stopped_at is not None
    [message] = [json.loads(raw) for raw in broker.lrange("gpu", 0, -1)]
    assert message["headers"]["task"] == "experiments.tasks.run_training"
    assert message["headers"]["argsrepr"] == f"[{orphan.pk}]"
    broker.delete("gpu")
