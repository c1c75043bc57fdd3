"""What ``manage.py replay_traffic`` reads from the platform: a deployment's held-out tasks,
a token to send them with, a one-line state of its canary, and how much more traffic the
canary's step needs to be decided (its analysis's ``needed``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from crucible.accounts.services import create_token, membership_of
from experiments.model_format import ModelFormat
from tasks_app.services import pinning

from ..models import ACTIVE_CANARY_STATES, Canary, CanaryState, Deployment


@dataclass(frozen=True)
class HeldOutTask:
    prompt: str
    family: str
    task: str
    """Its content hash in the pool version."""


def held_out_tasks(deployment: Deployment, family: str | None, limit: int) -> list[HeldOutTask]:
    """The held-out tasks of the pool versions the served model was trained on (one family
    with ``family``); ValueError saying why when there are none."""
    trained = ModelFormat.from_dict(deployment.version.format)
    families = [f for f in trained.families if family in (None, f.family) and f.pool_version]
    if not families:
        names = ", ".join(f.family for f in trained.families) or "none"
        raise ValueError(
            f"no held-out pool for family {family!r}; the model was trained on: {names}"
        )
    tasks = []
    for entry in families:
        assert entry.pool_version is not None
        for task in pinning.version_tasks(entry.pool_version, pinning.HELD_OUT, limit):
            tasks.append(HeldOutTask(task.prompt, entry.family, task.meta["content_hash"]))
    if not tasks:
        raise ValueError("the pool versions the model was trained on have no held-out tasks")
    return tasks


def token_for(username: str | None, deployment: Deployment) -> str:
    """A one-day token of ``username`` bound to the deployment's team."""
    if not username:
        raise ValueError("give --token (or CRUCIBLE_TOKEN), or --user to mint one")
    user = get_user_model().objects.filter(username=username).first()
    if user is None or membership_of(user, deployment.team) is None:
        raise ValueError(f"{username!r} is not a member of team {deployment.team.slug!r}")
    return create_token(user, "replay_traffic", team=deployment.team, days=1).secret


def canary_line(deployment: Deployment) -> str:
    canary = (
        Canary.objects.filter(deployment=deployment, state__in=ACTIVE_CANARY_STATES)
        .only("pk", "state", "steps", "step")
        .first()
    )
    if canary is None:
        last = Canary.objects.filter(deployment=deployment).only("pk", "state").first()
        return f"canary {last.pk} {last.state.replace('_', ' ')}" if last else ""
    return f"canary {canary.pk} {canary.state.replace('_', ' ')} at {canary.share}%"


@dataclass(frozen=True)
class CanaryWatch:
    running: bool
    """Still deciding by itself: not finished, not waiting for a person, not paused."""
    line: str
    needed_requests: int | None
    """More requests its current step needs to be decided (None: not analysed yet)."""


def running_canary(deployment: Deployment) -> int | None:
    """The id of the deployment's canary that is deciding now, if any."""
    found = Canary.objects.filter(deployment=deployment, state=CanaryState.RUNNING)
    return found.values_list("pk", flat=True).first()


def watch(canary_id: int) -> CanaryWatch:
    canary = Canary.objects.only("pk", "state", "steps", "step", "analysis").get(pk=canary_id)
    needed = (canary.analysis or {}).get("needed") or {}
    line = f"canary {canary.pk} {canary.state.replace('_', ' ')} at {canary.share}%"
    return CanaryWatch(canary.state == CanaryState.RUNNING, line, needed.get("requests"))
