"""Where the registry's versions are released, asked of the app that releases them.

Deployments and canaries live in the ``serving`` app, above this one: it registers, from
its ``AppConfig.ready``, how to find a registered model's deployments and a checkpoint's
canaries, so the registry and the reports can say so without importing it (as this app
registers its runners into ``tasks_app``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..models import RegisteredModel


@dataclass(frozen=True)
class CanaryRelease:
    """A canary that tried a checkpoint, as an evaluation report lists it."""

    id: int
    deployment: str
    """The deployment's slug."""
    state: str
    reason: str
    candidate: str
    """The model version the canary tried."""
    created_at: datetime


DeploymentFinder = Callable[[RegisteredModel, int], list[str]]
"""``finder(model, limit) -> the slugs of up to limit deployments of the model``."""
CanaryFinder = Callable[[int, int, int], list[CanaryRelease]]
"""``finder(team_id, checkpoint_id, limit) -> up to limit of the team's canaries of that
checkpoint, newest first``."""

_deployment_finders: list[DeploymentFinder] = []
_canary_finders: list[CanaryFinder] = []


def register_deployment_finder(finder: DeploymentFinder) -> None:
    if finder not in _deployment_finders:
        _deployment_finders.append(finder)


def register_canary_finder(finder: CanaryFinder) -> None:
    if finder not in _canary_finders:
        _canary_finders.append(finder)


def deployments_of(model: RegisteredModel, limit: int) -> list[str]:
    """Slugs of up to ``limit`` deployments of ``model`` (none without a serving app)."""
    return [slug for finder in _deployment_finders for slug in finder(model, limit)][:limit]


def canaries_of(team_id: int, checkpoint_id: int, limit: int) -> list[CanaryRelease]:
    """Up to ``limit`` canaries of the team that tried ``checkpoint_id``, newest first."""
    found = [c for finder in _canary_finders for c in finder(team_id, checkpoint_id, limit)]
    return found[:limit]
