"""Task-pool versions: content hashes, deterministic train / held-out splits, diffs.

A version is identified by a hash over its tasks' content hashes (sorted, so row order does
not matter) and, for a family played as an environment, the environment it froze. A task's split depends only on its own hash, so re-importing the same data
gives the same split, and a task keeps its split across versions.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tasks_app.families.base import Task

Split = Literal["train", "held_out"]
DEFAULT_HELD_OUT_FRACTION = 0.1


def version_hash(task_hashes: Iterable[str]) -> str:
    """SHA-256 over the sorted task content hashes, one per line."""
    digest = hashlib.sha256()
    for task_hash in sorted(task_hashes):
        digest.update(task_hash.encode())
        digest.update(b"\n")
    return digest.hexdigest()


def with_environment(tasks_hash: str, environment: dict[str, Any] | None) -> str:
    """The hash of a version whose tasks hash to ``tasks_hash``, played in ``environment``.

    The same tasks played in another environment (another kind, other limits) are another
    thing to train on, so another version. A single-turn version's hash is its tasks' alone,
    as it always was.
    """
    if not environment:
        return tasks_hash
    digest = hashlib.sha256(tasks_hash.encode())
    digest.update(b"\nenvironment:")
    digest.update(json.dumps(environment, sort_keys=True, separators=(",", ":")).encode())
    return digest.hexdigest()


def split_for(task_hash: str, held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION) -> Split:
    """``held_out`` when the hash's first 32 bits, read as a fraction, fall below the share."""
    return "held_out" if int(task_hash[:8], 16) / 2**32 < held_out_fraction else "train"


@dataclass(frozen=True)
class PlannedTask:
    """A task as a version will store it."""

    task: Task
    content_hash: str
    split: Split


@dataclass(frozen=True)
class VersionSummary:
    content_hash: str
    task_count: int
    train_count: int
    held_out_count: int
    held_out_fraction: float
    difficulty_histogram: dict[int, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "content_hash": self.content_hash,
            "task_count": self.task_count,
            "train_count": self.train_count,
            "held_out_count": self.held_out_count,
            "held_out_fraction": self.held_out_fraction,
            "difficulty_histogram": {str(k): v for k, v in self.difficulty_histogram.items()},
        }


def summarise(
    entries: Iterable[tuple[str, int]], held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION
) -> VersionSummary:
    """Summary of a version from (task hash, difficulty) pairs.

    The version hash covers each task's difficulty too: regrading the same tasks is a new
    version (a curriculum samples by level), while splits still follow the task hash alone.
    """
    hashes: list[str] = []
    graded: list[str] = []
    levels: Counter[int] = Counter()
    for task_hash, difficulty in entries:
        hashes.append(task_hash)
        graded.append(f"{task_hash}:{difficulty}")
        levels[difficulty] += 1
    held_out = sum(split_for(h, held_out_fraction) == "held_out" for h in hashes)
    return VersionSummary(
        content_hash=version_hash(graded),
        task_count=len(hashes),
        train_count=len(hashes) - held_out,
        held_out_count=held_out,
        held_out_fraction=held_out_fraction,
        difficulty_histogram=dict(sorted(levels.items())),
    )


def plan_tasks(
    tasks: Iterable[Task], held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION
) -> list[PlannedTask]:
    """Hash and split tasks, dropping repeats of the same content (first one kept)."""
    planned, seen = [], set()
    for task in tasks:
        task_hash = task.content_hash()
        if task_hash not in seen:
            seen.add(task_hash)
            planned.append(PlannedTask(task, task_hash, split_for(task_hash, held_out_fraction)))
    return planned


@dataclass(frozen=True)
class VersionDiff:
    added: int
    removed: int
    unchanged: int
    added_examples: list[str]
    removed_examples: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "added_examples": self.added_examples,
            "removed_examples": self.removed_examples,
        }


def diff(old_hashes: Iterable[str], new_hashes: Iterable[str], examples: int = 5) -> VersionDiff:
    """What a new version adds to and removes from the previous one, by task hash.

    Examples are the smallest hashes, so the same pair of versions always shows the same ones;
    the caller looks the tasks up to show their prompts.
    """
    old, new = set(old_hashes), set(new_hashes)
    added, removed = new - old, old - new
    return VersionDiff(
        added=len(added),
        removed=len(removed),
        unchanged=len(old & new),
        added_examples=sorted(added)[:examples],
        removed_examples=sorted(removed)[:examples],
    )
