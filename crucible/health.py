"""``/healthz``: is the database, the broker, the channel layer and the sandbox usable?"""

from __future__ import annotations

import time
import uuid
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse


def check_database() -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"ok": True, "detail": connection.vendor}


def check_broker() -> dict[str, Any]:
    from crucible.celery_app import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        transport = conn.transport_cls
    return {"ok": True, "detail": str(transport)}


def check_channel_layer() -> dict[str, Any]:
    layer = get_channel_layer()
    if layer is None:
        return {"ok": False, "detail": "no channel layer configured"}
    channel = f"healthz.{uuid.uuid4().hex}"
    async_to_sync(layer.send)(channel, {"type": "healthz.ping"})
    message = async_to_sync(layer.receive)(channel)
    ok = message.get("type") == "healthz.ping"
    return {"ok": ok, "detail": type(layer).__name__}


def check_sandbox() -> dict[str, Any]:
    try:
        from tasks_app import sandbox
    except ImportError as exc:  # the package is optional on web-only hosts
        return {"ok": False, "detail": f"sandbox unavailable: {exc}"}
    capabilities_fn = getattr(sandbox, "capabilities", None)
    if capabilities_fn is None:
        return {"ok": False, "detail": "sandbox has no capability report"}
    caps = capabilities_fn()
    return {"ok": not caps.get("warnings"), "detail": caps}


CHECKS = {
    "database": check_database,
    "broker": check_broker,
    "channel_layer": check_channel_layer,
    "sandbox": check_sandbox,
}
# A degraded sandbox still runs with the layers it has; it does not make the service unhealthy.
ESSENTIAL = {"database", "broker", "channel_layer"}


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
    healthy = all(checks[name]["ok"] for name in ESSENTIAL)
    body = {
        "status": "ok" if healthy else "degraded",
        "checks": checks,
        "version": settings.CRUCIBLE_VERSION,
    }
    return JsonResponse(body, status=200 if healthy else 503)
