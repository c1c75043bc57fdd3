"""One Redis connection pool per URL for the whole process.

Django keeps a cache object per thread (and per async context), and its Redis cache client
makes a connection pool per cache object. An ASGI server runs each request's sync part on a
fresh thread, so every request opened a new Redis connection (for its throttle check, its
session) and dropped it. ``SharedConnectionPool`` hands every cache object of a process the
same pool for the same URL and options.
"""

from __future__ import annotations

import threading
from typing import Any

import redis


class SharedConnectionPool(redis.ConnectionPool):
    _pools: dict[tuple[str, tuple[tuple[str, Any], ...]], redis.ConnectionPool] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> redis.ConnectionPool:  # type: ignore[override]
        key = (url, tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
        with cls._lock:
            pool = cls._pools.get(key)
            if pool is None:
                pool = cls._pools[key] = redis.ConnectionPool.from_url(url, **kwargs)
        return pool
