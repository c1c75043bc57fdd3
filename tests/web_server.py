"""The web server as production runs it (``python -m crucible.serve``), in a process of its
own on a free port: for the browser tests, and for attacks only a real server shows."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

from tests.conftest import need_service

ROOT = Path(__file__).resolve().parents[1]


def database_url() -> str:
    """The test database's URL, for processes that must see the test's rows."""
    if connection.vendor != "postgresql":
        need_service("the server and worker need the test database on PostgreSQL (DATABASE_URL)")
    db = connection.settings_dict
    return (
        f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class WebServer:
    url: str
    process: subprocess.Popen


@contextmanager
def web_server(
    env: dict[str, str], log: Path | None = None, port: int | None = None
) -> Iterator[WebServer]:
    """The server, up once its ``/healthz`` answers; stopped with its process group after.

    Its output goes to ``log`` (nowhere by default, appended to when given); ``port`` serves
    it where an earlier one was, for clients that must find it again after a restart."""
    port = port or free_port()
    command = [sys.executable, "-m", "crucible.serve", "--host", "127.0.0.1", "--port", str(port)]
    with open(log or os.devnull, "a") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=5)
                break
            except OSError:
                assert process.poll() is None, "the web server exited"
                assert time.monotonic() < deadline, "the web server did not answer"
                time.sleep(0.3)
        yield WebServer(url, process)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def serving_for_tests(
    redis_url: str, workdir: Path, port: int | None = None
) -> Iterator[WebServer]:
    """The server on the test database and ``redis_url``, with its own var/ under ``workdir``
    and its output in ``workdir/web.log``."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CRUCIBLE_VAR_DIR": str(workdir / "var"),
        "DJANGO_SETTINGS_MODULE": "crucible.settings.test",
    }
    with web_server(env, log=workdir / "web.log", port=port) as running:
        yield running


@contextmanager
def serving_on_test_redis(workdir: Path, port: int | None = None) -> Iterator[WebServer]:
    """``serving_for_tests`` on ``REDIS_URL`` (its channel layer needs Redis): skipped, or
    failed under REQUIRE_SERVICES=1, without it."""
    redis = os.environ.get("REDIS_URL")
    if not redis:
        need_service("REDIS_URL is not set: the server's channel layer needs Redis")
    with serving_for_tests(redis or "", workdir, port) as running:
        yield running
