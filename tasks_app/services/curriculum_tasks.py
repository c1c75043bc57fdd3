"""The tasks a saved curriculum pins, for the apps that train and evaluate on them.

Training draws only from the train split of each pinned version; the held-out split is
the regression set. Other apps call these instead of reading pool tables.
"""

from __future__ import annotations

from collections.abc import Iterator

from tasks_app import curriculum as policy
from tasks_app.families.base import Task
from tasks_app.models import Curriculum, PoolTask, PoolVersion, Split

from . import pools
from .curricula import resolve

CurriculumRef = Curriculum | int
"""A saved curriculum, or its id."""


def training_set(
    curriculum: CurriculumRef,
) -> tuple[policy.CurriculumConfig, Iterator[tuple[str, int, str, Task]]]:
    """The policy config and (family, level, split, task) for every train task it pins.

    Held-out rows are not even loaded; the tasks stream from the database in order.
    """
    config, pinned = _pinned(curriculum)
    return config, _tasks_of(pinned, Split.TRAIN)


def held_out_set(curriculum: CurriculumRef) -> list[tuple[str, Task]]:
    """(family, task) for every held-out task of the pinned versions: the regression set."""
    _, pinned = _pinned(curriculum)
    return [(name, task) for name, _, _, task in _tasks_of(pinned, Split.HELD_OUT)]


def _pinned(ref: CurriculumRef) -> tuple[policy.CurriculumConfig, dict[str, PoolVersion]]:
    curriculum = (
        ref if isinstance(ref, Curriculum) else Curriculum.objects.select_related("team").get(pk=ref)
    )
    return resolve(curriculum.config, PoolVersion.objects.filter(family__team=curriculum.team))


def _tasks_of(pinned: dict[str, PoolVersion], split: str) -> Iterator[tuple[str, int, str, Task]]:
    for name, version in pinned.items():
        rows = PoolTask.objects.filter(version=version, split=split).order_by("position")
        for row in rows.iterator():
            yield name, row.difficulty, row.split, pools.task_from_row(row)
