"""What a pool version changed against its parent, told by the tasks' prompts, not their hashes.

The counts and the first added and removed tasks are stored with a version when it is written;
versions written before the examples carried their prompts get them looked up when read.
"""

from __future__ import annotations

from typing import Any, Literal

from django.db.models import QuerySet
from django.db.models.functions import Substr

from tasks_app.models import PoolTask, PoolVersion
from tasks_app.pools import versions

EXAMPLES = 10
"""Added and removed tasks a version's diff shows (each side)."""
PROMPT_CHARS = 200
"""The start of each example's prompt: enough to recognise a task."""

Side = Literal["added", "removed"]


def version_diff(version: PoolVersion, parent: PoolVersion) -> dict[str, Any]:
    """Counts against ``parent`` and the first added and removed tasks with their prompts."""
    old = parent.tasks.values_list("content_hash", flat=True).iterator()
    new = version.tasks.values_list("content_hash", flat=True).iterator()
    found = versions.diff(old, new, examples=EXAMPLES).to_dict()
    return {
        "against": parent.number,
        **found,
        "added_examples": examples(version, found["added_examples"]),
        "removed_examples": examples(parent, found["removed_examples"]),
    }


def examples(version: PoolVersion, hashes: list[str]) -> list[dict[str, Any]]:
    """The tasks of ``version`` with these hashes, in that order: hash, prompt start, level."""
    rows = version.tasks.filter(content_hash__in=hashes).values_list(
        "content_hash", Substr("prompt", 1, PROMPT_CHARS + 1), "difficulty"
    )
    found = {h: (prompt, level) for h, prompt, level in rows}
    return [
        {"content_hash": h, "prompt": _cut(found[h][0]), "difficulty": found[h][1]}
        for h in hashes
        if h in found
    ]


def _cut(prompt: str) -> str:
    return prompt if len(prompt) <= PROMPT_CHARS else prompt[:PROMPT_CHARS] + "…"


def described_diff(version: PoolVersion) -> dict[str, Any]:
    """The stored diff, its examples given prompts where they are bare hashes."""
    diff = dict(version.diff or {})
    for key in ("added_examples", "removed_examples"):
        bare = [item for item in diff.get(key) or [] if isinstance(item, str)]
        if not bare:
            continue
        holder = version if key == "added_examples" else version.parent
        diff[key] = examples(holder, bare) if holder is not None else []
    return diff


def changed_tasks(version: PoolVersion, side: Side) -> QuerySet[PoolTask]:
    """Every task ``version`` added to its parent, or every one of the parent's it removed."""
    parent = version.parent
    if parent is None:
        return version.tasks.all() if side == "added" else PoolTask.objects.none()
    if side == "added":
        return version.tasks.exclude(content_hash__in=parent.tasks.values("content_hash"))
    return parent.tasks.exclude(content_hash__in=version.tasks.values("content_hash"))
