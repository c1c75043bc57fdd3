"""Where a deployment's requests go, read once a second per web process, not per request.

A generate request needs the deployment's serving replica and its running canary (with
the candidate's replica); reading them on every request costs more than the tiny model's
generation. ``route`` keeps them per deployment for ``SERVING_ROUTE_CACHE_S`` (a second by
default), so a change made elsewhere (a canary's step, a rollback by the analysis in a
worker, a replica getting ready) reaches every web process within that time; a change made
in this process (``forget``) at once. What a request is judged against is immutable (a
pool version's task, a verifier version), so it is kept for as long as the process lives.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from crucible.accounts.models import Team
from tasks_app.services import pinning

from ..models import Canary, Deployment, Replica, ReplicaRole


@dataclass(frozen=True)
class Route:
    production: Replica | None
    """The newest starting or serving production replica."""
    canary: Canary | None
    """The active canary, with its replica and candidate."""


_routes: dict[int, tuple[float, Route]] = {}
_lock = threading.Lock()


def route(deployment: Deployment) -> Route:
    now = time.monotonic()
    with _lock:
        found = _routes.get(deployment.pk)
    if found is not None and found[0] > now:
        return found[1]
    from . import canaries, deployments  # they import this module to forget

    fresh = Route(
        deployments.live_replica(deployment, ReplicaRole.PRODUCTION),
        canaries.active(deployment),
    )
    with _lock:
        _routes[deployment.pk] = (now + settings.SERVING_ROUTE_CACHE_S, fresh)
    return fresh


def forget(deployment_id: int) -> None:
    """Read the deployment's route again on its next request (it changed here).

    Forgotten now and again when the change commits: a request served in between (another
    thread of this process) would otherwise read the old route and keep it for a second."""

    def drop() -> None:
        with _lock:
            _routes.pop(deployment_id, None)

    drop()
    transaction.on_commit(drop)


_known_verifiers: set[tuple[int, int]] = set()
_known_tasks: dict[tuple[int, str, str, int | None], Any] = {}
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


def task_expected(team: Team, family: str, task: str, prefer: int | None) -> Any:
    """``pinning.family_task_expected``, kept once found (a pool version never changes)."""
    key = (team.pk, family, task, prefer)
    if key in _known_tasks:
        return _known_tasks[key]
    found = pinning.family_task_expected(team, family, task, prefer=prefer)
    if found is not None:
        if len(_known_tasks) >= MAX_KNOWN_TASKS:
            _known_tasks.clear()
        _known_tasks[key] = found
    return found
