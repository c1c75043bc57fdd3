import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from crucible.settings.env import ConfigError, database_from_url, env_bool, env_networks
from tests.conftest import REQUIRE_SERVICES

ROOT = Path(__file__).resolve().parents[2]


def test_it_parses_a_postgres_url():
    db = database_from_url(
        "postgres://crucible:s%40cret@db.internal:5433/crucible?sslmode=require", base_dir=ROOT
    )
    assert (db["ENGINE"], db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "django.db.backends.postgresql",
        "crucible",
        "crucible",
        "s@cret",
        "db.internal",
        "5433",
    )
    assert db["OPTIONS"] == {"sslmode": "require"}


def test_it_puts_sqlite_in_wal_mode():
    db = database_from_url("sqlite:///var/x.sqlite3", base_dir=ROOT)
    assert db["NAME"] == str(ROOT / "var/x.sqlite3")
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]


def test_it_names_a_bad_value(monkeypatch):
    monkeypatch.setenv("DEBUG", "perhaps")
    with pytest.raises(ConfigError, match="DEBUG='perhaps' is not a boolean"):
        env_bool("DEBUG")
    with pytest.raises(ConfigError, match="scheme 'mysql'"):
        database_from_url("mysql://x/y", base_dir=ROOT)



def test_it_reads_trusted_proxies_as_networks_and_names_a_bad_one(monkeypatch):
    assert env_networks("TRUSTED_PROXIES") == []
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.7")
    assert [str(n) for n in env_networks("TRUSTED_PROXIES")] == ["10.0.0.0/8", "192.0.2.7/32"]
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8, proxy.internal")
    with pytest.raises(ConfigError, match="TRUSTED_PROXIES: 'proxy.internal' is not an IP"):
        env_networks("TRUSTED_PROXIES")

def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "DJANGO_SETTINGS_MODULE", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_it_passes_the_deploy_check_in_production(tmp_path):
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env={
            "DJANGO_SETTINGS_MODULE": "crucible.settings.production",
            "SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "crucible.example.com",
            "CRUCIBLE_VAR_DIR": str(tmp_path),
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
def test_it_refuses_production_without_a_secret_key(tmp_path):
    result = _manage(
        "check",
        env={
            "DJANGO_SETTINGS_MODULE": "crucible.settings.production",
            "CRUCIBLE_VAR_DIR": str(tmp_path),
        },
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set in production" in result.stderr


@pytest.mark.django_db
def test_it_runs_on_postgresql_when_services_are_required():
    if not REQUIRE_SERVICES and not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.skip("DATABASE_URL is not PostgreSQL: running on the embedded SQLite default")
    assert connection.vendor == "postgresql"
