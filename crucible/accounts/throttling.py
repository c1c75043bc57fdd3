"""Who is calling, and how often they may try to log in.

The client's address is the TCP peer's, unless that peer is one of ``TRUSTED_PROXIES``:
only then does ``X-Forwarded-For`` count, read from the right, because every entry left
of the nearest untrusted hop may have been written by the client itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin
from rest_framework.throttling import SimpleRateThrottle

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


class LoginRateThrottle(SimpleRateThrottle):
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
