# ruff: noqa: F811 - the fixtures imported below are parameters of the tests
"""Faults during a real run, watched as a user watches it: a real web server
(``python -m crucible.serve``), a real Celery worker and a short run of the tiny model, with a
websocket client following ``/ws/runs/<id>/`` and a poller reading the run over REST every
0.2 s. Server and worker share a Redis of the test's own (broker, channel layer, cache).

Each fault hits mid-run, after a checkpoint: the worker killed with SIGKILL and another
started; the web server killed and started again (the socket reconnects with ``?since=``);
Redis stopped for 20 s and started again, empty; every database connection terminated.
Each time the run succeeds, REST has steps 1..N once each, the socket was sent each step once
(again only when a frame marks it replaced) and the API never answered a 5xx.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import websockets

from crucible.accounts.services import create_token
from experiments.models import Checkpoint, Run, RunState, Worker
from tests.conftest import celery_worker
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)
from tests.experiments.test_run_recovery import terminate_other_connections
from tests.experiments.test_training_worker import (  # noqa: F401 (fixtures)
    drained,
    worker_env,
)
from tests.redis_server import RedisServer, redis_server
from tests.web_server import WebServer, serving_for_tests

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MAX_STEPS = 12
KEY = "success"
"""A metric every GRPO step logs, whatever its rewards."""
REDIS_OUTAGE_S = 20
POLL_INTERVAL_S = 0.2


def wait_until(predicate, what: str, limit_s: float = 120, *, logs=(), detail=lambda: ""):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    tail = "".join(lines[-80:] for lines in logs) if logs else ""
    raise AssertionError(f"timed out waiting for {what}: {detail()}\n{tail}")


class Stage:
    """The web server, the worker and the private Redis they share; each can be broken and
    brought back while the socket client and the poller keep reading through ``url``."""

    def __init__(self, redis: RedisServer, worker_env: dict[str, str], workdir: Path) -> None:
        self.redis = redis
        self.workdir = workdir
        self.worker_env = {
            **worker_env,
            "REDIS_URL": redis.url,
            # A run whose queue message a restarted Redis lost is sent again soon.
            "RUN_QUEUED_RESEND_SECONDS": "3",
        }
        self.web: WebServer | None = None
        self._web_stack: ExitStack | None = None
        self._web_starts = 0
        self.worker = None
        self.worker_lines: list[str] = []
        self._worker_stack: ExitStack | None = None

    @property
    def url(self) -> str:
        assert self.web is not None
        return self.web.url

    def start_web(self) -> None:
        self._web_starts += 1
        folder = self.workdir / f"web{self._web_starts}"
        folder.mkdir()
        self._web_stack = ExitStack()
        self.web = self._web_stack.enter_context(serving_for_tests(self.redis.url, folder))

    def kill_web(self) -> None:
        """SIGKILL, as a crashed host would: open sockets end without a close frame."""
        assert self.web is not None and self._web_stack is not None
        os.killpg(self.web.process.pid, signal.SIGKILL)
        try:
            self._web_stack.close()
        except ProcessLookupError:
            pass
        self.web, self._web_stack = None, None

    def start_worker(self) -> None:
        self._worker_stack = ExitStack()
        self.worker = self._worker_stack.enter_context(
            celery_worker(self.worker_env, queues="gpu")
        )
        self.worker_lines = drained(self.worker)
        process, lines = self.worker, self.worker_lines

        def heartbeat() -> bool:
            assert process.poll() is None, "".join(lines)[-4000:]
            return Worker.objects.filter(stopped_at=None, pid=process.pid).exists()

        wait_until(heartbeat, "the worker's heartbeat", logs=[lines])

    def kill_worker(self) -> None:
        assert self.worker is not None and self._worker_stack is not None
        os.killpg(self.worker.pid, signal.SIGKILL)  # the whole worker, no goodbye
        self.worker.wait()
        try:
            self._worker_stack.close()
        except ProcessLookupError:
            pass
        self.worker, self._worker_stack = None, None

    def close(self) -> None:
        for stack in (self._worker_stack, self._web_stack):
            if stack is not None:
                try:
                    stack.close()
                except ProcessLookupError:
                    pass


class Poller:
    """GET the run every 0.2 s from a thread; every answer that was not 2xx, and every time
    the server could not be reached at all."""

    def __init__(self, stage: Stage, path: str, token: str) -> None:
        self.stage, self.path, self.token = stage, path, token
        self.failures: list[tuple[int, str]] = []
        self.unreachable = 0
        self.answered = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            web = self.stage.web
            if web is None:
                self.unreachable += 1
            else:
                request = urllib.request.Request(
                    f"{web.url}{self.path}", headers={"Authorization": f"Bearer {self.token}"}
                )
                try:
                    with urllib.request.urlopen(request, timeout=30) as answer:
                        answer.read()
                        self.answered += 1
                except urllib.error.HTTPError as error:
                    self.failures.append((error.code, error.read().decode(errors="replace")[:500]))
                except OSError:
                    self.unreachable += 1
            self._stop.wait(POLL_INTERVAL_S)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(40)


class SocketClient:
    """Follows ``/ws/runs/<id>/`` the way the run page does, in a thread of its own: applies a
    history (it replaces what is held), chains points frames by ``prev``/``seq`` (asking to
    resume after a gap), and on a close other than 4401/4403 reconnects with ``?since=``."""

    def __init__(self, stage: Stage, run_id: int, token: str) -> None:
        self.stage, self.run_id, self.token = stage, run_id, token
        self.seq: int | None = None
        self.sent: Counter[int] = Counter()  # how many times each step of KEY came
        self.replaced: set[int] = set()
        self.states: list[str] = []
        self.frames: list[dict] = []  # what came, briefly, for a failure's message
        self.connections = 0
        self.closes: list[int | None] = []
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._follow()), daemon=True)
        self._thread.start()

    @property
    def steps(self) -> set[int]:
        return set(self.sent)

    def _socket_url(self) -> str | None:
        web = self.stage.web
        if web is None:
            return None
        url = web.url.replace("http://", "ws://") + f"/ws/runs/{self.run_id}/?token={self.token}"
        return url if self.seq is None else f"{url}&since={self.seq}"

    async def _follow(self) -> None:
        try:
            while not self._stop.is_set():
                url = self._socket_url()
                if url is None:
                    await asyncio.sleep(0.2)
                    continue
                try:
                    async with websockets.connect(url, open_timeout=10) as socket_:
                        self.connections += 1
                        await self._read(socket_)
                except websockets.ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd is not None else None
                    self.closes.append(code)
                    assert code not in (4401, 4403), f"the socket was refused: {code}"
                except (TimeoutError, OSError, websockets.InvalidHandshake):
                    self.closes.append(None)
                await asyncio.sleep(0.3)  # backoff before reconnecting
        except BaseException as error:  # noqa: BLE001 - reported by the test's assertion
            self.error = error

    async def _read(self, socket_) -> None:
        while not self._stop.is_set():
            try:
                text = await asyncio.wait_for(socket_.recv(), timeout=0.5)
            except TimeoutError:
                continue
            frame = json.loads(text)
            kind = frame.get("type")
            self.frames.append(
                {k: frame.get(k) for k in ("type", "prev", "seq", "replaced")}
                | {"steps": frame.get("points", {}).get(KEY, {}).get("step")}
            )
            if kind == "history":
                self.sent = Counter(frame["points"].get(KEY, {}).get("step", []))
                self.replaced = set()
                self.seq = frame["seq"]
            elif kind == "points":
                if self.seq is not None and frame["prev"] != self.seq:
                    # A gap: ask for what came after the last frame applied.
                    await socket_.send(json.dumps({"type": "resume", "since": self.seq}))
                    continue
                self.replaced.update(frame.get("replaced", {}).get(KEY, []))
                self.sent.update(frame["points"].get(KEY, {}).get("step", []))
                self.seq = frame["seq"]
            elif kind == "run":
                self.states.append(frame["run"]["state"])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(20)


@pytest.fixture
def stage(worker_env, tmp_path) -> Iterator[Stage]:
    with redis_server() as redis:
        running = Stage(redis, worker_env, tmp_path)
        try:
            running.start_web()
            running.start_worker()
            yield running
        finally:
            running.close()


def http(stage: Stage, method: str, path: str, token: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{stage.url}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert 200 <= answer.status < 300, answer.status
        return json.loads(answer.read() or b"{}")


def launch(stage: Stage, owner, team, token: str) -> int:
    config = config_for(
        digit_version(owner, team),
        digit_verifier(owner, team),
        hyperparameters={"max_steps": MAX_STEPS, "checkpoint_every": 2},
        rollout_groups=2,
    )
    created = http(
        stage, "POST", "/api/v1/experiments/", token,
        {"team": "reasoning", "name": "Sort", "config": config},
    )  # fmt: skip
    return http(stage, "POST", f"/api/v1/experiments/{created['id']}/launch/", token, {})["id"]


def rest_steps(stage: Stage, run_id: int, token: str) -> list[int]:
    page = http(stage, "GET", f"/api/v1/runs/{run_id}/metrics/raw/?key={KEY}&limit=1000", token)
    return page["points"]["step"]


class Watched:
    """A launched run with its socket client and its poller."""

    def __init__(self, stage: Stage, owner, team) -> None:
        self.stage = stage
        self.token = create_token(owner, "faults", team=team).secret
        self.run_id = launch(stage, owner, team, self.token)
        self.socket = SocketClient(stage, self.run_id, self.token)
        self.poller = Poller(stage, f"/api/v1/runs/{self.run_id}/", self.token)

    def logs(self) -> list[list[str]]:
        return [self.stage.worker_lines] if self.stage.worker is not None else []

    def at_a_checkpoint(self) -> None:
        wait_until(
            lambda: Checkpoint.objects.filter(run_id=self.run_id).exists(),
            "a checkpoint",
            logs=self.logs(),
        )
        assert Run.objects.get(pk=self.run_id).step < MAX_STEPS, "the run ended before the fault"

    def finish(self, *, unreachable_allowed: bool = False) -> None:
        expected = set(range(1, MAX_STEPS + 1))
        try:
            run = wait_until(
                lambda: (r := Run.objects.get(pk=self.run_id)).finished and r,
                "the run to finish",
                limit_s=240,
                logs=self.logs(),
            )
            assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
            assert rest_steps(self.stage, self.run_id, self.token) == sorted(expected)
            wait_until(
                lambda: self.socket.steps >= expected and RunState.SUCCEEDED in self.socket.states,
                "the socket to be sent every step and the end",
                limit_s=30,
                detail=lambda: f"{self.socket.closes} {self.socket.frames}",
            )
        finally:
            self.socket.stop()
            self.poller.stop()
        assert self.socket.error is None, repr(self.socket.error)
        assert self.socket.steps == expected, sorted(self.socket.steps)
        again = {s: n for s, n in self.socket.sent.items() if n > 1 and s not in self.socket.replaced}
        assert not again, f"sent more than once, not replaced: {again} {self.socket.frames}"
        server_errors = [f for f in self.poller.failures if f[0] >= 500]
        assert not server_errors, server_errors
        assert not self.poller.failures, self.poller.failures
        assert self.poller.answered > 0
        if not unreachable_allowed:
            assert self.poller.unreachable == 0, self.poller.unreachable


def test_it_finishes_a_run_whose_worker_was_killed_under_a_socket(stage, owner, team):
    watched = Watched(stage, owner, team)
    watched.at_a_checkpoint()
    stage.kill_worker()
    assert Run.objects.get(pk=watched.run_id).state == RunState.RUNNING
    stage.start_worker()  # its reaper queues the run again once the dead one is stale
    watched.finish()
    assert Run.objects.get(pk=watched.run_id).attempts == 2


def test_it_finishes_a_run_whose_web_server_restarted_under_a_socket(stage, owner, team):
    watched = Watched(stage, owner, team)
    watched.at_a_checkpoint()
    connections = watched.socket.connections
    stage.kill_web()
    stage.start_web()  # another port: the clients follow ``stage.url``
    wait_until(
        lambda: watched.socket.connections > connections, "the socket to reconnect", limit_s=60
    )
    watched.finish(unreachable_allowed=True)
    assert Run.objects.get(pk=watched.run_id).attempts == 1


def test_it_finishes_a_run_through_a_redis_outage_under_a_socket(stage, owner, team):
    watched = Watched(stage, owner, team)
    watched.at_a_checkpoint()
    stage.redis.stop()
    down_until = time.monotonic() + REDIS_OUTAGE_S
    # The worker and the web server must live through it, not merely come back after.
    while time.monotonic() < down_until:
        assert stage.worker.poll() is None, "".join(stage.worker_lines)[-4000:]
        assert stage.web.process.poll() is None, "the web server exited"
        time.sleep(0.5)
    stage.redis.start()  # empty, as after a restart without persistence
    watched.finish()


def test_it_finishes_a_run_whose_database_connections_were_terminated_under_a_socket(
    stage, owner, team
):
    watched = Watched(stage, owner, team)
    watched.at_a_checkpoint()
    assert terminate_other_connections() > 0
    watched.finish()
    run = Run.objects.get(pk=watched.run_id)
    assert run.attempts >= 1 and run.step == MAX_STEPS
