"""Shared fixtures: personas, API clients, and access to the real services.

Tests that need PostgreSQL or Redis skip with a reason when those are absent, unless
``REQUIRE_SERVICES=1`` (as in CI), where a missing service fails the test instead.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.test import APIClient

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``gpu`` skip, saying why, where torch sees no CUDA device."""
    gpu = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu:
        return
    import torch  # only when a gpu test was collected: most of the suite never needs torch

    if torch.cuda.is_available():
        return
    build = "" if torch.version.cuda else f" (torch {torch.__version__} is built without CUDA)"
    skip = pytest.mark.skip(reason=f"needs a CUDA device: none is visible{build}")
    for item in gpu:
        item.add_marker(skip)


def need_service(reason: str) -> None:
    """Skip, or fail under REQUIRE_SERVICES=1, saying which service is missing."""
    if REQUIRE_SERVICES:
        pytest.fail(f"REQUIRE_SERVICES=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    """The test database, whose every session commits without waiting for the WAL's flush:
    the Celery workers the tests start run on the base settings, which do not ask for it
    (crucible/settings/test.py does, for this process and the live servers)."""
    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            name = connection.ops.quote_name(connection.settings_dict["NAME"])
            cursor.execute(f"ALTER DATABASE {name} SET synchronous_commit TO off")
    return django_db_setup


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        need_service("REDIS_URL is not set: Redis-backed behaviour not tested")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        need_service(f"Redis at {url} is unreachable: {exc}")
    return url  # type: ignore[return-value]


@pytest.fixture
def make_user(db):  # type: ignore[no-untyped-def]
    def make(username: str, password: str = "correct horse battery") -> object:
        return get_user_model().objects.create_user(username, f"{username}@example.com", password)

    return make


@pytest.fixture
def owner(make_user):  # type: ignore[no-untyped-def]
    return make_user("owner")


@pytest.fixture
def team(owner):  # type: ignore[no-untyped-def]
    from crucible.accounts import services

    return services.create_team(owner, "Reasoning", "reasoning")


@pytest.fixture
def teammate(make_user, team):  # type: ignore[no-untyped-def]
    from crucible.accounts.models import Membership, Role

    user = make_user("teammate")
    Membership.objects.create(user=user, team=team, role=Role.VIEWER)
    return user


@pytest.fixture
def editor(make_user, team):  # type: ignore[no-untyped-def]
    from crucible.accounts.models import Membership, Role

    user = make_user("editor")
    Membership.objects.create(user=user, team=team, role=Role.EDITOR)
    return user


@pytest.fixture
def outsider(make_user):  # type: ignore[no-untyped-def]
    from crucible.accounts import services

    user = make_user("outsider")
    services.create_team(user, "Elsewhere", "elsewhere")
    return user


@pytest.fixture
def client_for():  # type: ignore[no-untyped-def]
    def make(user: object | None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


@pytest.fixture
def api(client_for, owner):  # type: ignore[no-untyped-def]
    return client_for(owner)


@contextmanager
def celery_worker(
    env: dict[str, str], queues: str = "gpu,cpu,default", concurrency: int = 1
) -> Iterator[subprocess.Popen]:
    """A real Celery worker process with ``env`` (solo pool; prefork with ``concurrency``
    above 1); stopped with its whole group."""
    root = Path(__file__).resolve().parents[1]
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "crucible",
        "worker",
        "-Q",
        queues,
        *(["-P", "solo"] if concurrency == 1 else ["-P", "prefork", "-c", str(concurrency)]),
        "--without-mingle",
        "--without-gossip",
        "-l",
        "WARNING",
    ]
    process = subprocess.Popen(
        command,
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
