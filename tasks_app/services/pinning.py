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
from .families import effective_template

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
    environment: dict[str, Any] | None = None
    """The environment the version froze when it was made (``PoolVersion.environment``, in
    ``tasks_app.environments.family_config``'s shape), None when its tasks are single-turn. A
    later edit of the family's environment makes new versions, never changes this one."""


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
        v.pk: PinnedVersion(v.pk, v.family.slug, v.family.kind, v.number, v.environment or None)
        for v in pinned.values()
    }


def pinned_versions(team: Team, ids: Iterable[int]) -> dict[int, PinnedVersion]:
    """Each of ``ids`` that is a pool version of ``team``, with its family (no config is
    checked: what pins them was validated when it was saved)."""
    rows = PoolVersion.objects.select_related("family").filter(pk__in=list(ids), family__team=team)
    return {
        v.pk: PinnedVersion(v.pk, v.family.slug, v.family.kind, v.number, v.environment or None)
        for v in rows
    }


def verifier_specs(team: Team, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The canonical spec of each of ``ids`` that is a verifier version of ``team``."""
    rows = VerifierVersion.objects.filter(pk__in=list(ids), verifier__team=team)
    return {pk: spec for pk, spec in rows.values_list("pk", "spec")}


@dataclass(frozen=True)
class PinnedFormat:
    """How a pinned pool version's prompts were written, with its family."""

    id: int
    family: str
    number: int
    prompt_template: str | None
    """The family's template, else its kind's (what ``pools`` renders prompts with); None for
    an upload whose prompts were taken as written."""


@dataclass(frozen=True)
class PinnedVerifier:
    id: int
    verifier: str
    """The verifier's slug."""
    number: int
    extract: str
    """The extractor its spec takes the answer with."""


def pinned_formats(team: Team, ids: Iterable[int]) -> dict[int, PinnedFormat]:
    """Each of ``ids`` that is a pool version of ``team``, with its prompt template."""
    rows = PoolVersion.objects.select_related("family").filter(pk__in=list(ids), family__team=team)
    return {v.pk: PinnedFormat(v.pk, v.family.slug, v.number, _template(v)) for v in rows}


def _template(version: PoolVersion) -> str | None:
    """The template the version's prompts were written with, as it recorded; a version from
    before templates were recorded says what its family renders with now."""
    detail = version.source_detail or {}
    if detail.get("prompt_mode") == "as_is":
        return None
    return detail.get("prompt_template") or effective_template(version.family)


def pinned_verifiers(team: Team, ids: Iterable[int]) -> dict[int, PinnedVerifier]:
    """Each of ``ids`` that is a verifier version of ``team``, with its extractor."""
    rows = VerifierVersion.objects.select_related("verifier").filter(
        pk__in=list(ids), verifier__team=team
    )
    return {
        v.pk: PinnedVerifier(v.pk, v.verifier.slug, v.number, str(v.spec.get("extract", "")))
        for v in rows
    }


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


@dataclass(frozen=True)
class PinnedTask:
    prompt: str
    expected: dict[str, Any]


def family_task(
    team: Team, family: str, content_hash: str, prefer: int | None = None
) -> PinnedTask | None:
    """The prompt and expected data of the task with ``content_hash`` in any pool version of
    the team's family ``family`` (its slug), from version ``prefer`` when it holds it; None
    if absent."""
    rows = PoolTask.objects.filter(
        version__family__team=team, version__family__slug=family, content_hash=content_hash
    ).only("prompt", "expected")
    found = rows.filter(version_id=prefer).first() if prefer is not None else None
    found = found or rows.order_by("-version_id").first()
    return None if found is None else PinnedTask(found.prompt, found.expected)
