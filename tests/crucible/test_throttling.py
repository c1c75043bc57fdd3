import os
import random
import subprocess
import sys
from ipaddress import ip_network
from pathlib import Path

import pytest
from django.core.cache import caches
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from crucible.accounts import throttling
from crucible.accounts.throttling import client_address
from tests.redis_server import redis_server

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
LOGIN = "/api/v1/auth/login/"
WRONG = {"username": "owner", "password": "wrong"}
PROXY_NETWORK = ip_network("10.0.0.0/8")


@pytest.fixture(autouse=True)
def three_logins_a_minute(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "login", "3/min")


def fresh_address() -> str:
    """A documentation-range IPv6 address no other test (or earlier run) has counted."""
    return str(ip_network("2001:db8::/32")[random.getrandbits(96)])


def test_it_reads_forwarded_for_only_from_a_trusted_proxy():
    trusted = [PROXY_NETWORK]
    assert client_address("192.0.2.9", "203.0.113.5", trusted) == "192.0.2.9"
    assert client_address("10.0.0.2", "203.0.113.5", trusted) == "203.0.113.5"
    # Entries left of the nearest untrusted hop may be the client's own invention.
    assert client_address("10.0.0.2", "1.2.3.4, 203.0.113.5, 10.0.0.7", trusted) == "203.0.113.5"
    assert client_address("10.0.0.2", "not-an-ip, 10.0.0.7", trusted) == "10.0.0.7"
    assert client_address("10.0.0.2", "10.0.0.9", trusted) == "10.0.0.9"
    assert client_address("10.0.0.2", "203.0.113.5", []) == "10.0.0.2"


def test_it_throttles_an_untrusted_peer_however_it_rotates_x_forwarded_for(owner):
    peer, client = fresh_address(), APIClient()
    statuses = [
        client.post(
            LOGIN, WRONG, format="json", REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}"
        ).status_code
        for n in range(4)
    ]
    assert statuses == [400, 400, 400, 429]
    response = client.post(LOGIN, WRONG, format="json", REMOTE_ADDR=peer)
    assert response.json()["errors"][0]["code"] == "throttled"


def test_it_throttles_the_forwarded_client_behind_a_trusted_proxy(owner, settings):
    settings.TRUSTED_PROXIES = [PROXY_NETWORK]
    caller, bystander, client = fresh_address(), fresh_address(), APIClient()

    def attempt(client_ip: str, spoofed: int) -> int:
        forwarded = f"198.51.100.{spoofed}, {client_ip}"
        return client.post(
            LOGIN, WRONG, format="json", REMOTE_ADDR="10.1.2.3", HTTP_X_FORWARDED_FOR=forwarded
        ).status_code

    assert [attempt(caller, n) for n in range(4)] == [400, 400, 400, 429]
    assert attempt(bystander, 0) == 400


def test_it_throttles_the_admin_login(owner):
    client, peer = APIClient(), fresh_address()
    form = {"username": "owner", "password": "wrong", "next": "/admin/"}
    statuses = [client.post("/admin/login/", form, REMOTE_ADDR=peer).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert int(client.post("/admin/login/", form, REMOTE_ADDR=peer)["Retry-After"]) > 0
    assert client.get("/admin/login/", REMOTE_ADDR=peer).status_code == 200


def test_it_counts_api_and_admin_login_attempts_together(owner):
    client, peer = APIClient(), fresh_address()
    for _ in range(3):
        client.post(LOGIN, WRONG, format="json", REMOTE_ADDR=peer)
    form = {"username": "owner", "password": "wrong"}
    assert client.post("/admin/login/", form, REMOTE_ADDR=peer).status_code == 429


def test_it_keeps_login_counters_in_redis_where_every_process_sees_them(owner, redis_url):
    assert caches["default"].__class__.__name__ == "RedisCache"
    peer = fresh_address()
    APIClient().post(LOGIN, WRONG, format="json", REMOTE_ADDR=peer)
    # A cache client of its own, as another web process would have.
    elsewhere = caches.create_connection("default")
    assert len(elsewhere.get(f"throttle_login_{peer}")) == 1


def test_it_still_throttles_logins_per_process_while_redis_is_down(owner, settings):
    with redis_server() as redis:
        settings.CACHES = {
            "default": {
                **settings.CACHES["default"],
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": redis.url,
            }
        }
        redis.stop()
        client, peer = APIClient(), fresh_address()
        try:
            statuses = [
                client.post(LOGIN, WRONG, format="json", REMOTE_ADDR=peer).status_code
                for _ in range(4)
            ]
        finally:
            throttling.shared_cache.down_until = 0.0  # the next test's Redis is up
    # Before, the first attempt was a 500: the throttle's cache read raised.
    assert statuses == [400, 400, 400, 429]


def _embedded(code: str, var_dir: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
    env |= {"DJANGO_SETTINGS_MODULE": "crucible.settings.base", "CRUCIBLE_VAR_DIR": str(var_dir)}
    setup = "import django; django.setup(); from django.core.cache import caches; "
    setup += "cache = caches['default']; "
    result = subprocess.run(
        [sys.executable, "-c", setup + code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.slow
def test_it_shares_login_counters_between_processes_in_the_embedded_default(tmp_path):
    backend = _embedded(
        "print(type(cache).__name__); cache.set('throttle_login_x', [1, 2])", tmp_path
    )
    assert backend == "FileBasedCache"
    assert _embedded("print(cache.get('throttle_login_x'))", tmp_path) == "[1, 2]"


def test_it_believes_x_forwarded_proto_only_from_a_trusted_proxy(settings):
    from django.test import RequestFactory

    from crucible.accounts.throttling import ClientAddressMiddleware

    settings.TRUSTED_PROXIES = [PROXY_NETWORK]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    middleware = ClientAddressMiddleware(lambda request: None)

    def secure(peer: str) -> bool:
        request = RequestFactory().get("/", REMOTE_ADDR=peer, HTTP_X_FORWARDED_PROTO="https")
        middleware.process_request(request)
        return request.is_secure()

    assert secure("10.0.0.5") is True
    assert secure("192.0.2.9") is False
