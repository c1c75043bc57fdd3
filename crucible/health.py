"""``/healthz``: is the database, the broker, the channel layer, the cache and the sandbox
usable?

What it answers: 200 with ``"status": "ok"`` when every check passes; 200 with
``"status": "degraded"`` when the web process still serves the API but something behind it
is not usable (Redis down: the broker, the channel layer and the shared cache fail, so
launches wait, live pages stop and throttles count per process); 503 with
``"status": "down"`` only when the database cannot be reached, since then no request can be
answered. A load balancer that drops a web process on 503 thus keeps every process in
rotation through a Redis outage, instead of taking the whole API down with it. Each check
says whether it is ok and why not.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse

from crucible.celery_app import app
from tasks_app import sandbox


def check_database() -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"ok": True, "detail": connection.vendor}


def check_broker() -> dict[str, Any]:
    with app.connection_for_write() as conn:
        # No pause between tries: a broker that is down must not hold the check for seconds.
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
        transport = conn.transport_cls
    return {"ok": True, "detail": str(transport)}


def check_channel_layer() -> dict[str, Any]:
    layer = get_channel_layer()
    if layer is None:
        return {"ok": False, "detail": "no channel layer configured"}
    channel = f"healthz.{uuid.uuid4().hex}"

    async def ping() -> dict[str, Any]:
        await layer.send(channel, {"type": "healthz.ping"})
        return await layer.receive(channel)

    # A hung Redis would hold the check for the layer's long read timeout.
    message = async_to_sync(asyncio.wait_for)(ping(), CHECK_TIMEOUT_S)
    ok = message.get("type") == "healthz.ping"
    return {"ok": ok, "detail": type(layer).__name__}


def check_cache() -> dict[str, Any]:
    key = f"healthz.{uuid.uuid4().hex}"
    cache.set(key, 1, timeout=10)
    ok = cache.get(key) == 1
    cache.delete(key)
    return {"ok": ok, "detail": type(cache).__name__}


def check_sandbox() -> dict[str, Any]:
    caps = sandbox.capabilities()
    return {"ok": not caps.get("warnings"), "detail": caps}


CHECKS = {
    "database": check_database,
    "broker": check_broker,
    "channel_layer": check_channel_layer,
    "cache": check_cache,
    "sandbox": check_sandbox,
}
# Without its database a web process answers nothing; without the rest it still serves the
# API (degraded). A degraded sandbox still runs with the layers it has.
ESSENTIAL = {"database"}
CHECK_TIMEOUT_S = 2.0


def run_checks() -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            result = check()
        except Exception as exc:  # noqa: BLE001 - a health check reports, never raises
            result = {"ok": False, "detail": f"{type(exc).__name__}: {exc}"}
        result["ms"] = round((time.perf_counter() - started) * 1000, 1)
        results[name] = result
    return results


def healthz(request: HttpRequest) -> JsonResponse:
    checks = run_checks()
    serving = all(checks[name]["ok"] for name in ESSENTIAL)
    if not serving:
        status = "down"
    elif all(check["ok"] for name, check in checks.items() if name != "sandbox"):
        status = "ok"
    else:
        status = "degraded"
    body = {"status": status, "checks": checks, "version": settings.CRUCIBLE_VERSION}
    return JsonResponse(body, status=200 if serving else 503)
