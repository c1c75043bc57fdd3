"""Pool versions looked up by id in one team, for evaluating a model on their held-out split.

Another team's version is as good as unknown. The tasks themselves stream through
``pinning.version_tasks(version, pinning.HELD_OUT)``.
"""

from __future__ import annotations

from collections.abc import Iterable

from crucible.accounts.models import Team
from tasks_app.models import PoolVersion

from .pinning import PinnedVersion


def versions_in_team(team: Team, ids: Iterable[int]) -> dict[int, PinnedVersion]:
    rows = PoolVersion.objects.filter(pk__in=list(ids), family__team=team).select_related("family")
    return {
        v.pk: PinnedVersion(v.pk, v.family.slug, v.family.kind, v.number, v.environment or None)
        for v in rows
    }
