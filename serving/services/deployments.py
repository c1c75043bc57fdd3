"""Deployments and their replicas.

A deployment serves the version a registered model's ``production`` alias points at (a
promoted checkpoint, ``services.registry``); creating one starts its production replica, a
job on the ``serve`` queue (``services.replicas``) that loads the model and answers over
HTTP. Stopping a deployment stops its replicas and ends any canary as cancelled. Replicas
beat; one without a beat for ``STALE_SECONDS`` is gone, and what depended on it is told so.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from crucible import jobs
from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors, unique_conflicts_refused
from crucible.realtime.publish import publish_to_team
from experiments.model_format import SERVED_KEYS
from experiments.models import ModelAlias, RegisteredModel
from experiments.services import registry

from ..jobs import SERVE_REPLICA
from ..models import (
    ACTIVE_CANARY_STATES,
    LIVE_REPLICA_STATES,
    Canary,
    Deployment,
    Replica,
    ReplicaRole,
    ReplicaState,
)
from . import routing

RECENT_REPLICAS = 6
"""Replicas a deployment shows, newest first."""
STALE_SECONDS = 15
"""A replica without a heartbeat this long has lost its worker."""
SLUG_TAKEN = "a deployment with this slug already exists in the team"
LIMITS = {
    "max_new_tokens": (1, 512),
    "temperature": (0.0, 5.0),
    "timeout_s": (0.5, 300.0),
    "max_queue": (1, 10_000),
    "max_batch": (1, 256),
}


class DeploymentConflict(ValidationError):
    """A 409 naming the field at fault: the deployment cannot do that now."""

    status_code = 409
    default_code = "conflict"

    def __init__(self, field: str, why: str) -> None:
        super().__init__({field: [why]})


# --- deployments -----------------------------------------------------------------------------


def create(
    user: AbstractBaseUser,
    team: Team,
    *,
    name: str,
    slug: str,
    registered_model: RegisteredModel,
    served_format: dict[str, Any] | None = None,
    **settings_: Any,
) -> Deployment:
    """A deployment of ``registered_model``'s production version, its replica started."""
    if registered_model.team_id != team.pk:
        raise field_errors([("registered_model", "no such registered model in the team")])
    production = (
        ModelAlias.objects.select_related("version")
        .filter(model=registered_model, alias=registry.PRODUCTION)
        .first()
    )
    if production is None:
        why = (
            f"model {registered_model.name!r} has no production alias: promote a checkpoint "
            "on an approved report, register it, and point production at it first"
        )
        raise DeploymentConflict("registered_model", why)
    checked = _checked_settings(settings_)
    served = _checked_format(served_format)
    if Deployment.objects.filter(team=team, slug=slug).exists():
        raise field_errors([("slug", SLUG_TAKEN)], code="unique")
    with unique_conflicts_refused(Deployment, "slug", SLUG_TAKEN):
        deployment = Deployment.objects.create(
            team=team, name=name.strip() or slug, slug=slug,
            registered_model=registered_model, version=production.version,
            served_format=served, created_by=user, **checked,
        )  # fmt: skip
        record(user, "deployment.created", deployment, team=team,
               changes={"version": production.version.number, **checked})  # fmt: skip
        start_replica(deployment, ReplicaRole.PRODUCTION)
        publish(deployment, "created")
    return deployment


def update(user: AbstractBaseUser, deployment: Deployment, **changes: Any) -> Deployment:
    """Change a deployment's name, serving settings or served format; replicas read the
    settings per request, so nothing restarts (``max_queue`` and ``max_batch`` reach serving
    replicas at their next heartbeat)."""
    fields = {k: v for k, v in changes.items() if k in LIMITS}
    checked = _checked_settings(fields)
    if "served_format" in changes:
        checked["served_format"] = _checked_format(changes["served_format"])
    if "name" in changes:
        checked["name"] = str(changes["name"]).strip() or deployment.slug
    changed = {k: v for k, v in checked.items() if getattr(deployment, k) != v}
    if not changed:
        return deployment
    with transaction.atomic():
        for key, value in changed.items():
            setattr(deployment, key, value)
        deployment.updated_at = timezone.now()
        deployment.save()
        record(user, "deployment.updated", deployment, team=deployment.team,
               changes={"changed": sorted(changed)})  # fmt: skip
        publish(deployment, "updated")
    return deployment


def stop_serving(user: AbstractBaseUser, deployment: Deployment) -> Deployment:
    """Stop serving: replicas are told to stop. Its canary is not this module's to end:
    ``canaries.stop_deployment`` cancels it first, then calls this."""
    with transaction.atomic():
        deployment.stopped = True
        deployment.updated_at = timezone.now()
        deployment.save(update_fields=["stopped", "updated_at"])
        for replica in deployment.replicas.filter(state__in=LIVE_REPLICA_STATES):
            stop_replica(replica, "the deployment was stopped")
        record(user, "deployment.stopped", deployment, team=deployment.team)
        publish(deployment, "stopped")
    return deployment


def restart(user: AbstractBaseUser, deployment: Deployment) -> Deployment:
    """Serve again (after a stop, or when the production replica was lost)."""
    with transaction.atomic():
        deployment.stopped = False
        deployment.updated_at = timezone.now()
        deployment.save(update_fields=["stopped", "updated_at"])
        current = routing.live_replica(deployment, ReplicaRole.PRODUCTION)
        if current is None or is_stale(current):
            if current is not None:
                mark_lost(current)
            start_replica(deployment, ReplicaRole.PRODUCTION)
        record(user, "deployment.started", deployment, team=deployment.team)
        publish(deployment, "started")
    return deployment


def delete(user: AbstractBaseUser, deployment: Deployment) -> None:
    """Delete a stopped deployment with its request log; a serving one is a 409."""
    if not deployment.stopped:
        raise DeploymentConflict(
            "deployment", f"deployment {deployment.slug!r} is serving; stop it first"
        )
    with transaction.atomic():
        record(user, "deployment.deleted", deployment, team=deployment.team)
        publish(deployment, "deleted")
        deployment.delete()


def _checked_settings(values: dict[str, Any]) -> dict[str, Any]:
    errors, out = [], {}
    for key, value in values.items():
        if key not in LIMITS:
            continue
        low, high = LIMITS[key]
        integer = isinstance(low, int) and not isinstance(low, bool)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (integer and not isinstance(value, int))
        ):
            errors.append((key, f"expected {'an integer' if integer else 'a number'}"))
        elif not low <= value <= high:
            errors.append((key, f"must be between {low} and {high}"))
        else:
            out[key] = value
    if errors:
        raise field_errors(errors)
    return out


def _checked_format(served: Any) -> dict[str, Any]:
    if served is None:
        return {}
    if not isinstance(served, dict):
        raise field_errors([("served_format", "expected an object")])
    unknown = sorted(set(served) - set(SERVED_KEYS))
    if unknown:
        known = ", ".join(SERVED_KEYS)
        raise field_errors([("served_format", f"unknown keys {unknown}; known: {known}")])
    return dict(served)


def slugs_of_model(model: RegisteredModel, limit: int) -> list[str]:
    """The registry's ``releases.DeploymentFinder``: what keeps ``model`` from being deleted."""
    return list(
        Deployment.objects.filter(registered_model=model).values_list("slug", flat=True)[:limit]
    )


def for_team(team_ids: list[int]) -> QuerySet[Deployment]:
    return Deployment.objects.filter(team_id__in=team_ids).select_related(
        "registered_model", "version", "team"
    )


# --- replicas --------------------------------------------------------------------------------


def start_replica(deployment: Deployment, role: str, version: Any = None) -> Replica:
    """A replica of ``version`` (default: the deployment's) queued on the ``serve`` queue."""
    replica = Replica.objects.create(
        deployment=deployment, version=version or deployment.version, role=role,
        message="waiting for a serving worker",
    )  # fmt: skip
    routing.forget(deployment.pk)
    jobs.send_on_commit(SERVE_REPLICA, replica.pk)
    return replica


def stop_replica(replica: Replica, why: str) -> None:
    """Ask a replica to stop; it notices at its next beat. One that never started is stopped."""
    routing.forget(replica.deployment_id)
    state = ReplicaState.STOPPING if replica.state == ReplicaState.READY else ReplicaState.STOPPED
    Replica.objects.filter(pk=replica.pk, state__in=LIVE_REPLICA_STATES).update(
        state=state,
        message=why,
        stopped_at=timezone.now() if state == ReplicaState.STOPPED else None,
    )


def with_shown(rows: QuerySet[Deployment]) -> QuerySet[Deployment]:
    """``rows`` with what a deployment shows (its version, recent and live replicas, active
    canary) fetched once for the whole page: a query per deployment would make a page of
    50 deployments cost hundreds of queries."""
    replicas = Replica.objects.select_related("version__model").order_by("-id")
    canaries = Canary.objects.filter(state__in=ACTIVE_CANARY_STATES).select_related(
        "production__model", "candidate__model", "replica__version__model", "created_by"
    )
    return rows.select_related("version__model").prefetch_related(
        Prefetch("replicas", replicas[:RECENT_REPLICAS], to_attr="recent_replicas"),
        Prefetch(
            "replicas", replicas.filter(state__in=LIVE_REPLICA_STATES), to_attr="live_replicas"
        ),
        Prefetch("canaries", canaries.order_by("-id"), to_attr="active_canaries"),
    )


def recent_replicas(deployment: Deployment) -> list[Replica]:
    """Its newest replicas, from ``with_shown``'s prefetch when the row came through it."""
    found = getattr(deployment, "recent_replicas", None)
    if found is None:
        found = deployment.replicas.select_related("version__model").order_by("-id")
        found = list(found[:RECENT_REPLICAS])
    return found


def shown_replica(deployment: Deployment, role: str) -> Replica | None:
    """``live_replica`` from ``with_shown``'s prefetch when the row came through it."""
    live = getattr(deployment, "live_replicas", None)
    if live is None:
        return routing.live_replica(deployment, role)
    return next((replica for replica in live if replica.role == role), None)


def active_canary(deployment: Deployment) -> Canary | None:
    """Its active canary, from ``with_shown``'s prefetch when the row came through it."""
    active = getattr(deployment, "active_canaries", None)
    if active is None:
        active = (
            deployment.canaries.filter(state__in=ACTIVE_CANARY_STATES)
            .select_related(
                "production__model", "candidate__model", "replica__version__model", "created_by"
            )
            .order_by("-id")[:1]
        )
    return next(iter(active), None)


def is_stale(replica: Replica, now: Any = None) -> bool:
    """Ready, but silent for ``STALE_SECONDS``: its worker is gone."""
    if replica.state != ReplicaState.READY or replica.heartbeat_at is None:
        return False
    now = now or timezone.now()
    return replica.heartbeat_at < now - timedelta(seconds=STALE_SECONDS)


def mark_lost(replica: Replica, why: str = "") -> None:
    why = why or f"its worker stopped answering (no heartbeat for {STALE_SECONDS} s)"
    Replica.objects.filter(pk=replica.pk, state__in=LIVE_REPLICA_STATES).update(
        state=ReplicaState.FAILED, message=why[:500], stopped_at=timezone.now()
    )
    replica.state, replica.message = ReplicaState.FAILED, why[:500]
    routing.forget(replica.deployment_id)


def publish(deployment: Deployment, change: str, **extra: Any) -> None:
    routing.forget(deployment.pk)
    event = {"type": "deployment.changed", "deployment": deployment.slug, "change": change, **extra}
    team_id = deployment.team_id
    transaction.on_commit(lambda: publish_to_team(team_id, event), robust=True)
