"""Who is calling, and how often they may try to log in.

The client's address is the TCP peer's, unless that peer is one of ``TRUSTED_PROXIES``:
only then does ``X-Forwarded-For`` count, read from the right, because every entry left
of the nearest untrusted hop may have been written by the client itself.

Throttle counters live in the shared cache (Redis in production). When it cannot be
reached, a throttle counts in this process's memory instead of failing the request: the
limits then hold per process, not across processes, until the shared cache answers again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import Any

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin
from redis.exceptions import RedisError
from rest_framework import throttling

logger = logging.getLogger(__name__)

Network = IPv4Network | IPv6Network


def client_address(remote_addr: str, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The caller's address: ``remote_addr``, or the first untrusted hop a trusted proxy saw."""
    if not forwarded_for or not _is_trusted(remote_addr, trusted):
        return remote_addr
    address = remote_addr
    for hop in reversed([h.strip() for h in forwarded_for.split(",")]):
        if not _is_address(hop):
            # A malformed entry names nobody: blame the last hop that can be trusted.
            return address
        address = hop
        if not _is_trusted(hop, trusted):
            return hop
    return address


def _is_address(value: str) -> bool:
    try:
        ip_address(value)
    except ValueError:
        return False
    return True


def _is_trusted(value: str, trusted: Sequence[Network]) -> bool:
    if not _is_address(value):
        return False
    address = ip_address(value)
    return any(address in network for network in trusted)


class ClientAddressMiddleware(MiddlewareMixin):
    """Sets ``REMOTE_ADDR`` to the client's address, so throttles, logs and Django agree."""

    def process_request(self, request: HttpRequest) -> None:
        meta = request.META
        peer = meta.get("REMOTE_ADDR", "")
        if not _is_trusted(peer, settings.TRUSTED_PROXIES):
            # Only a trusted proxy may say the original request was HTTPS
            # (SECURE_PROXY_SSL_HEADER): from anyone else the header is dropped.
            meta.pop("HTTP_X_FORWARDED_PROTO", None)
        meta["REMOTE_ADDR"] = client_address(
            peer, meta.get("HTTP_X_FORWARDED_FOR"), settings.TRUSTED_PROXIES
        )


# After the shared cache fails, throttles skip it for this long: a hung Redis then costs one
# timeout per process per interval instead of one per request, and a restarted one is used
# again within it.
SHARED_CACHE_RETRY_S = 1.0
# Errors of the shared cache: Redis's own, or the file cache's in the embedded default.
CACHE_ERRORS = (RedisError, OSError)

_local_counters = LocMemCache("crucible-throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 100_000}})


class _SharedCacheState:
    """When the shared cache last failed in this process, so throttles can skip it a while."""

    def __init__(self) -> None:
        self.down_until = 0.0
        self.lock = threading.Lock()

    def usable(self) -> bool:
        return time.monotonic() >= self.down_until

    def failed(self, exc: Exception) -> None:
        with self.lock:
            first = self.usable()
            self.down_until = time.monotonic() + SHARED_CACHE_RETRY_S
        if first:
            logger.warning("throttle.shared_cache_unavailable", extra={"error": repr(exc)})


shared_cache = _SharedCacheState()


class DegradingThrottleMixin:
    """Counts in the shared cache, or in this process's memory while it cannot be reached."""

    cache: Any

    def allow_request(self, request: Any, view: Any) -> bool:
        if shared_cache.usable():
            try:
                return super().allow_request(request, view)  # type: ignore[misc]
            except CACHE_ERRORS as exc:
                shared_cache.failed(exc)
        self.cache = _local_counters
        return super().allow_request(request, view)  # type: ignore[misc]


class AnonRateThrottle(DegradingThrottleMixin, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(DegradingThrottleMixin, throttling.UserRateThrottle):
    pass


class LoginRateThrottle(DegradingThrottleMixin, throttling.SimpleRateThrottle):
    """Login attempts per client address, counted together across every way to log in."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str:
        # By address even for a signed-in caller: the attempt may be at another account.
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def refuse_login_attempt(request: HttpRequest) -> HttpResponse | None:
    """For login views outside the API: a 429 once the caller is past the login rate."""
    throttle = LoginRateThrottle()
    if throttle.allow_request(request, None):
        return None
    wait_s = int(throttle.wait() or 1)
    return HttpResponse(
        f"Too many login attempts. Try again in {wait_s} seconds.\n",
        status=429,
        content_type="text/plain",
        headers={"Retry-After": str(wait_s)},
    )
