"""A live server for the client's tests: the production server process on the test database
and this run's Redis, with a token of the owner persona."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from crucible_client import Crucible

from tests.web_server import WebServer, serving_on_test_redis


@pytest.fixture(scope="package")  # one server start for every module that does not restart it
def server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[WebServer]:  # type: ignore[no-untyped-def]
    with serving_on_test_redis(tmp_path_factory.mktemp("server")) as running:
        yield running


@pytest.fixture
def token(owner, team) -> str:  # type: ignore[no-untyped-def]
    from crucible.accounts.services import create_token

    return create_token(owner, "client", team=team).secret


@pytest.fixture
def crucible(server, token) -> Crucible:  # type: ignore[no-untyped-def]
    return Crucible(server.url, token)


@pytest.fixture(autouse=True)
def own_spool_and_config(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Nothing a test spools or saves lands in the home directory."""
    monkeypatch.setenv("CRUCIBLE_SPOOL_DIR", str(tmp_path / "spool"))
    monkeypatch.setenv("CRUCIBLE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("CRUCIBLE_URL", raising=False)
    monkeypatch.delenv("CRUCIBLE_TOKEN", raising=False)
