"""What an experiment pins, looked up in a team, as plain values for the apps that train.

An experiment names pool versions, verifier versions and possibly a saved curriculum by id;
these functions resolve those ids within one team (another team's id is as good as unknown)
and stream a pinned version's tasks, each carrying its content hash, so every reward a run
records traces back to the task that produced it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from crucible.accounts.models import Team
from tasks_app import curriculum as policy
from tasks_app.families.base import Task
from tasks_app.models import Curriculum, PoolTask, PoolVersion, Split, VerifierVersion

from . import pools
from .curricula import resolve

TRAIN, HELD_OUT = Split.TRAIN.value, Split.HELD_OUT.value


@dataclass(frozen=True)
class SavedCurriculum:
    id: int
    revision: int
    config: dict[str, Any]


@dataclass(frozen=True)
class PinnedVersion:
    id: int
    family: str
    """The family's slug: the name the curriculum policy and the metrics use."""
    kind: str
    number: int


def saved_curriculum(team: Team, curriculum_id: int) -> SavedCurriculum | None:
    found = Curriculum.objects.filter(team=team, pk=curriculum_id).first()
    if found is None:
        return None
    config = found.config if isinstance(found.config, dict) else {}
    return SavedCurriculum(found.pk, found.revision, config)


def resolve_in_team(
    team: Team, config: Any
) -> tuple[policy.CurriculumConfig, dict[int, PinnedVersion]]:
    """``curricula.resolve`` against ``team``'s pool versions; the pinned versions by id.

    A 400 naming the field as a saved curriculum names it (``config.families[0].version``).
    """
    resolved, pinned = resolve(config, PoolVersion.objects.filter(family__team=team))
    return resolved, {
        v.pk: PinnedVersion(v.pk, v.family.slug, v.family.kind, v.number) for v in pinned.values()
    }


def verifier_specs(team: Team, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The canonical spec of each of ``ids`` that is a verifier version of ``team``."""
    rows = VerifierVersion.objects.filter(pk__in=list(ids), verifier__team=team)
    return {pk: spec for pk, spec in rows.values_list("pk", "spec")}


def version_tasks(version_id: int, split: str, limit: int | None = None) -> Iterator[Task]:
    """The tasks of one split of a pool version in order, each with ``meta["content_hash"]``."""
    rows = PoolTask.objects.filter(version_id=version_id, split=split).order_by("position")
    if limit is not None:
        rows = rows[:limit]
    for row in rows.iterator():
        task = pools.task_from_row(row)
        yield dataclasses.replace(task, meta={**task.meta, "content_hash": row.content_hash})


def task_expected(version_id: int, content_hash: str) -> dict[str, Any] | None:
    """The expected data of the task with ``content_hash`` in a pool version; None if absent."""
    rows = PoolTask.objects.filter(version_id=version_id, content_hash=content_hash)
    return rows.values_list("expected", flat=True).first()
