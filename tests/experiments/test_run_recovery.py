# ruff: noqa: F811 - the fixtures imported below are parameters of the tests
"""A run survives the loss of each component it depends on, on real worker processes.

PostgreSQL + Redis: every state change of a run reaches its socket and its team's; a launch
whose after-commit work fails (broker unreachable) still answers 202, and the reaper sends
the run again; a broker that restarts without persistence loses the queued message and the
reaper sends it again; terminated database connections give the run back to the queue to
resume from its last checkpoint (or, past the retries, fail it, and a resume continues it);
a broker outage under a running task leaves the worker alive (on the solo pool, and on the
prefork pool of production, where Celery's own consumer exited) and the run finished.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from channels.layers import get_channel_layer
from django.db import connection

from crucible import jobs
from crucible.celery_app import app as celery_app
from crucible.realtime.groups import team_group
from experiments.jobs import RUN_TRAINING
from experiments.models import Checkpoint, Run, RunState, Worker
from experiments.services import runs, workers
from tests.conftest import celery_worker
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    advertise,
    models_dir,
)
from tests.experiments.test_training_worker import (  # noqa: F401 (fixtures)
    EVERY_STEP,
    drained,
    finished,
    launch,
    steps_by_key,
    wait_for,
    worker_env,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """A Redis server of the test's own, without persistence, that the test may stop and
    start again (empty, as a restart without persistence leaves it)."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the private Redis did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture
def private_redis(tmp_path, settings) -> Iterator[PrivateRedis]:
    """A private Redis as this process's broker and channel layer (and the workers')."""
    if subprocess.run(["which", "redis-server"], capture_output=True).returncode:
        pytest.skip("redis-server is not installed")
    server = PrivateRedis(tmp_path)
    server.start()
    previous = celery_app.conf.broker_url
    use_broker(server.url)
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [server.url]},
        }
    }
    try:
        yield server
    finally:
        use_broker(previous)
        server.stop()


def use_broker(url: str) -> None:
    celery_app.conf.broker_url = url
    celery_app._pool = None  # the connection pools hold the old address
    celery_app.amqp._producer_pool = None


class Listener:
    """A member of channel-layer groups in a thread of its own; what it received."""

    def __init__(self) -> None:
        self.messages: list[dict] = []
        self.loop = asyncio.new_event_loop()
        self.layer = get_channel_layer()
        ready = threading.Event()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.channel = asyncio.run_coroutine_threadsafe(self.layer.new_channel(), self.loop).result()
        asyncio.run_coroutine_threadsafe(self._receive(ready), self.loop)
        ready.wait(5)

    async def _receive(self, ready: threading.Event) -> None:
        ready.set()
        while True:
            self.messages.append(await self.layer.receive(self.channel))

    def join(self, group: str) -> None:
        asyncio.run_coroutine_threadsafe(
            self.layer.group_add(group, self.channel), self.loop
        ).result(5)

    def events(self, group: str, kind: str) -> list[dict]:
        return [
            m["event"]
            for m in list(self.messages)
            if m.get("group") == group and m["event"].get("type") == kind
        ]


def terminate_other_connections() -> int:
    """Drop every other connection to the test database, as a restarting server would."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return len(cursor.fetchall())


def wait_for_heartbeat(process, lines) -> None:
    wait_for(lambda: Worker.objects.filter(stopped_at=None).exists(), "a heartbeat", process, lines)


def test_it_tells_the_run_socket_and_the_team_every_state_change(
    api, owner, team, worker_env
):
    listener = Listener()
    listener.join(team_group(team.pk))
    with celery_worker(worker_env, queues="gpu") as process:
        lines = drained(process)
        wait_for_heartbeat(process, lines)
        run_id = launch(api, owner, team, max_steps=4, checkpoint_every=2)
        listener.join(f"run.{run_id}")
        run = wait_for(lambda: finished(run_id), "the run to finish", process, lines)
        assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)

        def last_frame_says_succeeded() -> bool:
            frames = listener.events(f"run.{run_id}", "run")
            return bool(frames) and frames[-1]["run"]["state"] == RunState.SUCCEEDED

        wait_for(last_frame_says_succeeded, "the run socket to hear it ended", process, lines, 10)
    team_states = [
        e["state"] for e in listener.events(team_group(team.pk), "run.changed") if e["id"] == run_id
    ]
    assert team_states[0] == RunState.QUEUED and team_states[-1] == RunState.SUCCEEDED
    assert RunState.RUNNING in team_states


def test_it_answers_a_launch_whose_broker_is_down_and_sends_the_run_later(
    api, owner, team, private_redis, worker_env, settings
):
    advertise()  # the launch is checked against a running worker; the real one starts later
    private_redis.stop()  # broker and channel layer both unreachable
    run_id = launch(api, owner, team, max_steps=2)  # asserts 202
    assert Run.objects.get(pk=run_id).state == RunState.QUEUED

    experiment_id = Run.objects.get(pk=run_id).experiment_id
    again = api.post(f"/api/v1/experiments/{experiment_id}/launch/")
    assert again.status_code == 202, again.json()
    cancelled = again.json()["id"]
    response = api.post(f"/api/v1/runs/{cancelled}/cancel/")
    assert response.status_code in (200, 202), response.json()
    assert Run.objects.get(pk=cancelled).state == RunState.CANCELLED

    private_redis.start()  # empty: the launch's message never reached it
    env = {**worker_env, "REDIS_URL": private_redis.url, "RUN_QUEUED_RESEND_SECONDS": "2"}
    with celery_worker(env, queues="gpu") as process:
        lines = drained(process)
        run = wait_for(lambda: finished(run_id), "the resent run", process, lines, limit_s=180)
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    assert run.attempts == 1
    assert Run.objects.get(pk=cancelled).state == RunState.CANCELLED


def test_it_sends_again_a_queued_run_whose_message_a_broker_restart_lost(
    api, owner, team, private_redis, worker_env
):
    advertise()  # the launch is checked against a running worker; the real one starts later
    run_id = launch(api, owner, team, max_steps=2)
    import redis

    assert redis.Redis.from_url(private_redis.url).llen("gpu") == 1
    private_redis.stop()
    private_redis.start()  # without persistence: the message is gone
    assert redis.Redis.from_url(private_redis.url).llen("gpu") == 0

    env = {**worker_env, "REDIS_URL": private_redis.url, "RUN_QUEUED_RESEND_SECONDS": "2"}
    with celery_worker(env, queues="gpu") as process:
        lines = drained(process)
        run = wait_for(lambda: finished(run_id), "the resent run", process, lines, limit_s=180)
        # A duplicate message is harmless: the claim finds the run finished and drops it.
        jobs.send(RUN_TRAINING, run_id)
        time.sleep(3)
        assert process.poll() is None
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    assert run.attempts == 1
    assert runs.claim(run_id, "celery@late") is None


def test_it_resumes_a_run_whose_database_connections_were_terminated(
    api, owner, team, worker_env
):
    max_steps = 12
    with celery_worker(worker_env, queues="gpu") as process:
        lines = drained(process)
        wait_for_heartbeat(process, lines)
        run_id = launch(api, owner, team, max_steps=max_steps, checkpoint_every=3)
        wait_for(
            lambda: Checkpoint.objects.filter(run_id=run_id).exists(), "a checkpoint", process, lines
        )
        assert terminate_other_connections() > 0
        run = wait_for(lambda: finished(run_id), "the run", process, lines, limit_s=180)
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    assert (run.attempts, run.database_retries) == (2, 1)
    steps = steps_by_key(run)
    assert all(steps[key] == list(range(1, max_steps + 1)) for key in EVERY_STEP), steps


def test_it_resumes_a_run_that_failed_on_the_database_from_its_checkpoint(
    api, owner, team, worker_env
):
    max_steps = 9
    env = {**worker_env, "RUN_DATABASE_RETRIES": "0"}
    with celery_worker(env, queues="gpu") as process:
        lines = drained(process)
        wait_for_heartbeat(process, lines)
        run_id = launch(api, owner, team, max_steps=max_steps, checkpoint_every=3)
        wait_for(
            lambda: Checkpoint.objects.filter(run_id=run_id).exists(), "a checkpoint", process, lines
        )
        terminate_other_connections()
        run = wait_for(lambda: finished(run_id), "the run to fail", process, lines)
        assert run.state == RunState.FAILED and "OperationalError" in run.failure_reason

        resumed = api.post(f"/api/v1/runs/{run_id}/resume/", {}, format="json")
        assert resumed.status_code in (200, 202), resumed.json()
        assert resumed.json()["state"] == RunState.QUEUED
        run = wait_for(
            lambda: Run.objects.filter(pk=run_id, state=RunState.SUCCEEDED).first(),
            "the resumed run",
            process,
            lines,
        )
    assert run.failure_reason == "" and run.finished_at is not None
    steps = steps_by_key(run)
    assert all(steps[key] == list(range(1, max_steps + 1)) for key in EVERY_STEP), steps


@pytest.mark.parametrize("concurrency", [1, 2], ids=["solo", "prefork"])
def test_it_keeps_the_worker_and_the_run_through_a_broker_outage(
    api, owner, team, private_redis, worker_env, concurrency
):
    max_steps = 12
    env = {**worker_env, "REDIS_URL": private_redis.url, "RUN_QUEUED_RESEND_SECONDS": "3"}
    with celery_worker(env, queues="gpu", concurrency=concurrency) as process:
        lines = drained(process)
        wait_for_heartbeat(process, lines)
        run_id = launch(api, owner, team, max_steps=max_steps, checkpoint_every=3)
        wait_for(
            lambda: Checkpoint.objects.filter(run_id=run_id).exists(), "a checkpoint", process, lines
        )
        private_redis.stop()
        time.sleep(3)
        private_redis.start()  # empty, as after a restart without persistence
        run = wait_for(lambda: finished(run_id), "the run", process, lines, limit_s=240)
        assert process.poll() is None, "".join(lines)[-4000:]
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    steps = steps_by_key(run)
    assert all(steps[key] == list(range(1, max_steps + 1)) for key in EVERY_STEP), steps
    assert "Unrecoverable error" not in "".join(lines)


def test_it_lists_a_worker_whose_heartbeat_stopped_as_gone(api, team, worker_env):
    with celery_worker(worker_env, queues="gpu") as process:
        lines = drained(process)
        wait_for_heartbeat(process, lines)
        os.killpg(process.pid, signal.SIGKILL)  # no goodbye: its row still says it runs
    name = Worker.objects.get(stopped_at=None).name
    listed = {w["name"]: w for w in api.get("/api/v1/workers/").json()}
    assert listed[name]["status"] == "running"  # within the threshold it may be alive
    Worker.objects.filter(name=name).update(heartbeat_at=workers.stale_before())
    listed = {w["name"]: w for w in api.get("/api/v1/workers/").json()}
    assert listed[name]["status"] == "gone" and listed[name]["running"] is False
