"""Experiments pin the pool versions they train on: a family they use is archived, not deleted."""

from __future__ import annotations

from typing import Any

from tasks_app.services.families import Pin

from ..models import Experiment


def experiments_pinning(family: Any, numbers: dict[int, int]) -> list[Pin]:
    """Experiments of the family's team whose curriculum names one of its versions."""
    found = []
    for experiment in Experiment.objects.filter(team_id=family.team_id).order_by("created_at"):
        entries = ((experiment.config or {}).get("curriculum") or {}).get("families") or []
        ids = {e.get("pool_version") for e in entries if isinstance(e, dict)}
        pinned = sorted(numbers[i] for i in ids if i in numbers)
        if pinned:
            found.append(Pin("experiment", experiment.pk, experiment.name, pinned))
    return found
