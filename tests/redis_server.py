"""A Redis server of the test's own, on a free port, that a test may stop and start again
(the shared one must never be stopped): for what happens to the platform during an outage."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from tests.conftest import need_service
from tests.web_server import free_port


class RedisServer:
    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        assert self.process is None, "already running"
        command = [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--daemonize", "no",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
                return
            except redis.ConnectionError:
                assert self.process.poll() is None, "redis-server exited"
                assert time.monotonic() < deadline, "redis-server did not answer"
                time.sleep(0.05)

    def stop(self) -> None:
        """Kill it outright, as a crash would: open connections die with it."""
        assert self.process is not None, "not running"
        self.process.kill()
        self.process.wait()
        self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_connect_timeout=1, socket_timeout=2)


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        need_service("redis-server is not installed: a throwaway Redis cannot be started")
    server = RedisServer(free_port())
    server.start()
    try:
        yield server
    finally:
        if server.process is not None:
            server.stop()
