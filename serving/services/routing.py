"""Where a deployment's requests go, read from the database only when it changed.

A generate request needs the deployment's serving replica and its running canary (with
the candidate's replica); reading them on every request costs more than the tiny model's
generation. ``route`` keeps them per deployment and process, with the deployment's route
revision from the shared cache (Redis, or files in the embedded default): a change made
anywhere (a canary's step, a rollback by the analysis in a serve worker, a promotion) calls
``forget``, which bumps the revision when it commits, so every web process reads the route
again on its next request. What changes without ``forget`` (a replica getting ready, its
heartbeat) is read again after ``SERVING_ROUTE_CACHE_S`` (a second by default), as is
everything when the shared cache cannot be reached. What a request is judged against is
immutable (a pool version's task, a verifier version), so it is kept for as long as the
process lives.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from crucible.accounts.models import Team
from tasks_app.services import pinning

from ..models import (
    ACTIVE_CANARY_STATES,
    LIVE_REPLICA_STATES,
    Canary,
    Deployment,
    Replica,
    ReplicaRole,
)


@dataclass(frozen=True)
class Route:
    production: Replica | None
    """The newest starting or serving production replica."""
    canary: Canary | None
    """The active canary, with its replica and candidate."""


_routes: dict[int, tuple[float, int | None, Route]] = {}
_lock = threading.Lock()
logger = logging.getLogger(__name__)


def route(deployment: Deployment) -> Route:
    now = time.monotonic()
    revision = _revision(deployment.pk)
    with _lock:
        found = _routes.get(deployment.pk)
    if found is not None and found[0] > now and found[1] == revision:
        return found[2]
    fresh = Route(live_replica(deployment, ReplicaRole.PRODUCTION), active_canary(deployment))
    with _lock:
        _routes[deployment.pk] = (now + settings.SERVING_ROUTE_CACHE_S, revision, fresh)
    return fresh


def live_replica(deployment: Deployment, role: str) -> Replica | None:
    """The newest replica of ``role`` that is starting or serving."""
    return (
        deployment.replicas.filter(role=role, state__in=LIVE_REPLICA_STATES)
        .select_related("version__model")
        .order_by("-id")
        .first()
    )


def active_canary(deployment: Deployment) -> Canary | None:
    """The deployment's running, waiting or paused canary, with its replica and candidate."""
    return (
        Canary.objects.filter(deployment=deployment, state__in=ACTIVE_CANARY_STATES)
        .select_related("replica__version__model", "candidate", "deployment__team")
        .first()
    )


def forget(deployment_id: int) -> None:
    """Read the deployment's route again on its next request, in every web process.

    Forgotten here now and again when the change commits (a request served in between, on
    another thread, would otherwise keep the old route), and the shared revision is bumped
    when it commits, so other processes read it again too."""

    def drop() -> None:
        with _lock:
            _routes.pop(deployment_id, None)

    def committed() -> None:
        drop()
        _bump(deployment_id)

    drop()
    transaction.on_commit(committed, robust=True)


def _key(deployment_id: int) -> str:
    return f"route-revision:{deployment_id}"


def _revision(deployment_id: int) -> int | None:
    """The deployment's shared route revision; None when the shared cache is out of reach
    (the route is then kept for SERVING_ROUTE_CACHE_S only)."""
    try:
        found = cache.get(_key(deployment_id), 0)
    except Exception:  # noqa: BLE001 - a cache outage must not stop serving
        logger.warning("routing.cache_unreachable", exc_info=True)
        return None
    return int(found) if isinstance(found, int) else 0


def _bump(deployment_id: int) -> None:
    key = _key(deployment_id)
    try:
        cache.add(key, 0, timeout=None)
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=None)
    except Exception:  # noqa: BLE001 - other processes fall back to the route's time limit
        logger.warning("routing.cache_unreachable", exc_info=True)


_known_verifiers: set[tuple[int, int]] = set()
_known_tasks: dict[tuple[int, str, str, int | None], pinning.PinnedTask] = {}
MAX_KNOWN_TASKS = 20_000


def verifier_exists(team: Team, verifier: int) -> bool:
    """Whether ``verifier`` is a verifier version of ``team`` (a yes is kept: versions are
    immutable; a no is asked again, since the version may be made later)."""
    key = (team.pk, verifier)
    if key in _known_verifiers:
        return True
    if not pinning.verifier_specs(team, [verifier]):
        return False
    _known_verifiers.add(key)
    return True


def pool_task(team: Team, family: str, task: str, prefer: int | None) -> pinning.PinnedTask | None:
    """``pinning.family_task``, kept once found (a pool version never changes)."""
    key = (team.pk, family, task, prefer)
    if key in _known_tasks:
        return _known_tasks[key]
    found = pinning.family_task(team, family, task, prefer=prefer)
    if found is not None:
        if len(_known_tasks) >= MAX_KNOWN_TASKS:
            _known_tasks.clear()
        _known_tasks[key] = found
    return found
