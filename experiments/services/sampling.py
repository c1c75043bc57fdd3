"""Build the engine's task sampler from a saved curriculum and its pinned pool versions."""

from __future__ import annotations

from tasks_app.families.base import Task
from tasks_app.services.curriculum_tasks import CurriculumRef, held_out_set, training_set

from ..adapters import CurriculumSampler


def curriculum_sampler(curriculum: CurriculumRef, seed: int = 0) -> CurriculumSampler:
    """A sampler over the train split of the curriculum's versions; held-out rows are not loaded."""
    config, train = training_set(curriculum)
    return CurriculumSampler(config, train, seed=seed)


def held_out_tasks(curriculum: CurriculumRef) -> list[tuple[str, Task]]:
    """(family, task) for every held-out task of the pinned versions: the regression set."""
    return held_out_set(curriculum)
