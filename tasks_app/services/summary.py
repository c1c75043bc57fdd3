"""What a team has made so far: the counts behind the overview page and its first steps."""

from __future__ import annotations

from dataclasses import dataclass

from crucible.accounts.models import Team
from tasks_app.models import Curriculum, PoolVersion, TaskFamily, Verifier


@dataclass(frozen=True)
class TeamSummary:
    team: str
    families: int
    pool_versions: int
    verifiers: int
    curricula: int


def team_summary(team: Team) -> TeamSummary:
    return TeamSummary(
        team=team.slug,
        families=TaskFamily.objects.filter(team=team).count(),
        pool_versions=PoolVersion.objects.filter(family__team=team).count(),
        verifiers=Verifier.objects.filter(team=team).count(),
        curricula=Curriculum.objects.filter(team=team).count(),
    )
