"""Redis connections that survive an outage: one pool per URL per process, short timeouts,
and an immediate reconnect when a pooled connection turns out to be dead.

Django keeps a cache object per thread (and per async context), and its Redis cache client
makes a connection pool per cache object. An ASGI server runs each request's sync part on a
fresh thread, so every request opened a new Redis connection (for its throttle check, its
session) and dropped it. ``SharedConnectionPool`` hands every cache object of a process the
same pool for the same URL and options.

Redis is not essential to a request (the throttle and the live publish degrade without it),
so a dead Redis must cost a request milliseconds: connecting and reading time out quickly.
After a restart, every pooled connection's socket is dead; each would fail its next command
once unless the command is retried on a fresh connection, which ``retry`` does at once, and
a connection idle for ``HEALTH_CHECK_INTERVAL_S`` is pinged (and replaced) before use.
"""

from __future__ import annotations

import threading
from typing import Any

import redis
import redis.asyncio.retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

# Connecting to a Redis on the same network takes well under a millisecond; one that does
# not answer within this is treated as down.
CONNECT_TIMEOUT_S = 0.5
# The cache's commands are single-key reads and writes.
CACHE_SOCKET_TIMEOUT_S = 1.0
HEALTH_CHECK_INTERVAL_S = 10


def resilience_options(*, asyncio: bool = False) -> dict[str, Any]:
    """Connection options for a pool that reconnects at once and fails fast when down.

    One retry, without waiting, on a connection error: it replaces a stale pooled socket
    after a restart. A timeout is not retried: it would only double the wait on a hung Redis.
    """
    retry_class = redis.asyncio.retry.Retry if asyncio else redis.retry.Retry
    return {
        "socket_connect_timeout": CONNECT_TIMEOUT_S,
        "health_check_interval": HEALTH_CHECK_INTERVAL_S,
        "retry": retry_class(NoBackoff(), 1),
        "retry_on_error": [RedisConnectionError],
    }


class SharedConnectionPool(redis.ConnectionPool):
    _pools: dict[tuple[str, tuple[tuple[str, Any], ...]], redis.ConnectionPool] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> redis.ConnectionPool:  # type: ignore[override]
        key = (url, tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
        with cls._lock:
            pool = cls._pools.get(key)
            if pool is None:
                options = {
                    **resilience_options(),
                    "socket_timeout": CACHE_SOCKET_TIMEOUT_S,
                    **kwargs,
                }
                pool = cls._pools[key] = redis.ConnectionPool.from_url(url, **options)
        return pool
