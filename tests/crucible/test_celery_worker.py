"""A real Celery worker process consumes from the broker: filesystem (embedded) and Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import celery_worker

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

SEND = (
    "from crucible.celery_app import ping;"
    "print(ping.apply_async(args=['hello'], queue='{queue}').get(timeout=60)['echo'])"
)


def base_env(var_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        CRUCIBLE_VAR_DIR=str(var_dir), DJANGO_SETTINGS_MODULE="crucible.settings.base", **extra
    )
    env.pop("DATABASE_URL", None)
    return env


def run_worker_round_trip(env: dict[str, str], queue: str) -> str:
    with celery_worker(env):
        sent = subprocess.run(
            [sys.executable, "-c", SEND.format(queue=queue)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert sent.returncode == 0, sent.stderr[-2000:]
    return sent.stdout.strip()


def test_it_runs_a_task_on_a_worker_over_the_filesystem_broker(tmp_path):
    started = time.monotonic()
    assert run_worker_round_trip(base_env(tmp_path), queue="cpu") == "hello"
    assert time.monotonic() - started < 120


def test_it_runs_a_task_on_a_worker_over_redis(tmp_path, redis_url):
    assert run_worker_round_trip(base_env(tmp_path, REDIS_URL=redis_url), queue="gpu") == "hello"


def test_it_is_configured_for_long_reliable_jobs():
    from crucible.celery_app import app

    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert {q.name for q in conf.task_queues} == {"gpu", "cpu", "serve", "default"}
    assert conf.task_routes["serving.tasks.serve_replica"] == {"queue": "serve"}
    assert conf.task_routes["experiments.tasks.serve_replica"] == {"queue": "serve"}
    assert conf.task_routes["experiments.tasks.run_training"] == {"queue": "gpu"}
