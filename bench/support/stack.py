"""The production stack for a bench, on this machine: a fresh PostgreSQL database beside
``BENCH_DATABASE_URL``'s, Redis (``REDIS_URL``) and the web server (``crucible.serve``).

Everything started here is stopped, and the database dropped, when the ``with`` ends, a
SIGTERM included (``stop_on_sigterm``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
SECRET_KEY = "bench-not-secret"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@dataclass(frozen=True)
class Stack:
    url: str
    """``127.0.0.1:<port>`` where the web server answers."""
    token: str
    """A bearer token of the owner (admin) of the team that owns ``runs``."""
    runs: list[int]
    tmp: Path


def stop_on_sigterm() -> None:
    """A timeout's SIGTERM unwinds like Ctrl-C, so servers stop and databases are dropped."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def admin_url() -> str:
    return os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)


def url_of(name: str) -> str:
    return urlparse(admin_url())._replace(path=f"/{name}").geturl()


@contextlib.contextmanager
def database(name: str) -> Iterator[str]:
    """A fresh, empty database beside the admin one; its URL."""
    import psycopg

    with psycopg.connect(admin_url(), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url_of(name)
    finally:
        with psycopg.connect(admin_url(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def crucible(n_runs: int) -> Iterator[Stack]:
    """Crucible migrated into a fresh database, ``n_runs`` running runs, the web server on it;
    Django is set up in this process on the same database (for writers and checks)."""
    name = f"crucible_bench_{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp, database(name) as database_url:
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
            "SECRET_KEY": SECRET_KEY,
            "CRUCIBLE_VAR_DIR": tmp,
            "DJANGO_SETTINGS_MODULE": "crucible.settings.base",
            # One client sends far more than a person would; the throttle is not measured.
            "THROTTLE_USER": "1000000/min",
            "LOG_LEVEL": "WARNING",
        }
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        token, runs = fixtures(n_runs)
        port = free_port()
        try:
            with web_server(env, port, Path(tmp) / "web.log"):
                yield Stack(f"127.0.0.1:{port}", token, runs, Path(tmp))
        finally:
            connections.close_all()


def fixtures(n_runs: int) -> tuple[str, list[int]]:
    from django.contrib.auth import get_user_model

    from crucible.accounts import services
    from experiments.models import Experiment, Run, RunState

    user = get_user_model().objects.create_user("bench", "bench@example.com", "not-a-password")
    team = services.create_team(user, "Bench", "bench")
    token = services.create_token(user, "bench", team=team).secret
    experiment = Experiment.objects.create(team=team, name="bench", config={}, config_hash="0")
    runs = [
        Run.objects.create(experiment=experiment, team=team, number=n, state=RunState.RUNNING).pk
        for n in range(1, n_runs + 1)
    ]
    return token, runs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server(
    command: list[str], env: dict[str, str], health_url: str, log: Path, cwd: Path = ROOT
) -> Iterator[subprocess.Popen]:
    """A server process in its own session, up once ``health_url`` answers; stopped after."""
    with open(log, "w") as out:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_until_up(health_url, process, log)
        yield process
    finally:
        # A server that exited by itself (say, its module is not installed) has no group left
        # to signal: the reason wait_until_up gives is what the bench reports, not this.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def web_server(env: dict[str, str], port: int, log: Path) -> contextlib.AbstractContextManager:
    command = [sys.executable, "-m", "crucible.serve", "--host", "127.0.0.1", "--port", str(port)]
    return server(command, env, f"http://127.0.0.1:{port}/healthz", log)


def wait_until_up(url: str, process: subprocess.Popen, log: Path, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{process.args[0]} exited:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=2).read()
            return
        time.sleep(0.3)
    raise SystemExit(f"{url} did not answer in {timeout_s:.0f} s:\n{log.read_text()[-3000:]}")
