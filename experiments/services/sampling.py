"""Build the engine's task sampler from a saved curriculum and its pinned pool versions."""

from __future__ import annotations

from collections.abc import Iterator

from tasks_app.families.base import Task
from tasks_app.models import Curriculum, PoolTask, PoolVersion, Split
from tasks_app.services import pools
from tasks_app.services.curricula import resolve

from ..adapters import CurriculumSampler


def curriculum_sampler(curriculum: Curriculum, seed: int = 0) -> CurriculumSampler:
    """A sampler over the train split of the curriculum's versions; held-out rows are not loaded."""
    config, pinned = resolve(
        curriculum.config, PoolVersion.objects.filter(family__team=curriculum.team)
    )
    return CurriculumSampler(config, _train_entries(pinned), seed=seed)


def _train_entries(pinned: dict[str, PoolVersion]) -> Iterator[tuple[str, int, str, Task]]:
    for name, version in pinned.items():
        rows = PoolTask.objects.filter(version=version, split=Split.TRAIN).order_by("position")
        for row in rows.iterator():
            yield name, row.difficulty, row.split, pools.task_from_row(row)


def held_out_tasks(curriculum: Curriculum) -> list[tuple[str, Task]]:
    """(family, task) for every held-out task of the pinned versions: the regression set."""
    _, pinned = resolve(curriculum.config, PoolVersion.objects.filter(family__team=curriculum.team))
    return [
        (name, pools.task_from_row(row))
        for name, version in pinned.items()
        for row in PoolTask.objects.filter(version=version, split=Split.HELD_OUT).order_by(
            "position"
        )
    ]
