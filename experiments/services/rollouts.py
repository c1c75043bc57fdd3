"""The rollout inspector: a run's stored completions filtered, searched and grouped; and a
verdict flagged as wrong, which proposes the completion as a labelled example to the team
that owns the verifier (``tasks_app.services.example_proposals``).

Filters name their query parameter in every error. A completion matches when it passes every
filter; a group (the G completions of one prompt at one step) is shown when any of its
completions matches, with all of them, so the advantage that compares them stays readable.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from functools import reduce

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet

from crucible.api.field_errors import field_errors
from tasks_app.services import example_proposals, pinning

from ..models import Rollout, Run

MAX_SEARCH_CHARS = 200
"""Longest text searched for: the search scans one run's prompts and completions."""
MAX_FILTER_CHARS = 120


@dataclass(frozen=True)
class RolloutFilter:
    step: int | None = None
    family: str | None = None
    difficulty: int | None = None
    passed: bool | None = None
    error_type: str | None = None
    reward_min: float | None = None
    reward_max: float | None = None
    search: str | None = None
    """Case-insensitive text in the prompt or the completion."""


def parse_filter(params: Mapping[str, str]) -> RolloutFilter:
    """The filter a query string asks for; a 400 naming every bad parameter."""
    errors: list[tuple[str, str]] = []
    found = RolloutFilter(
        step=_whole(params, "step", errors),
        family=_text(params, "family", MAX_FILTER_CHARS, errors),
        difficulty=_whole(params, "difficulty", errors, signed=True),
        passed=_flag(params, "passed", errors),
        error_type=_text(params, "error_type", MAX_FILTER_CHARS, errors),
        reward_min=_number(params, "reward_min", errors),
        reward_max=_number(params, "reward_max", errors),
        search=_text(params, "search", MAX_SEARCH_CHARS, errors),
    )
    low, high = found.reward_min, found.reward_max
    if low is not None and high is not None and low > high:
        errors.append(("reward_max", "must be at least reward_min"))
    if errors:
        raise field_errors(errors)
    return found


def _whole(
    params: Mapping[str, str], name: str, errors: list, *, signed: bool = False
) -> int | None:
    value = params.get(name, "")
    if value == "":
        return None
    digits = value[1:] if signed and value.startswith("-") else value
    if not digits.isdigit() or len(digits) > 9:
        errors.append((name, "must be a whole number"))
        return None
    return int(value)


def _flag(params: Mapping[str, str], name: str, errors: list) -> bool | None:
    value = params.get(name, "")
    if value == "":
        return None
    if value not in ("true", "false"):
        errors.append((name, "must be true or false"))
        return None
    return value == "true"


def _number(params: Mapping[str, str], name: str, errors: list) -> float | None:
    value = params.get(name, "")
    if value == "":
        return None
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        errors.append((name, "must be a number"))
        return None
    return number


def _text(params: Mapping[str, str], name: str, limit: int, errors: list) -> str | None:
    value = params.get(name, "")
    if len(value) > limit:
        errors.append((name, f"at most {limit} characters"))
        return None
    return value or None


# --- queries -------------------------------------------------------------------------------


def matching(run: Run, found: RolloutFilter) -> QuerySet[Rollout]:
    """The run's completions that pass every filter, by step, group and sample."""
    rows = run.rollouts.order_by("step", "group", "sample")
    exact = {
        "step": found.step,
        "family": found.family,
        "difficulty": found.difficulty,
        "passed": found.passed,
        "error_type": found.error_type,
        "reward__gte": found.reward_min,
        "reward__lte": found.reward_max,
    }
    rows = rows.filter(**{key: value for key, value in exact.items() if value is not None})
    if found.search:
        rows = rows.filter(
            Q(prompt__icontains=found.search) | Q(completion__icontains=found.search)
        )
    return rows


def matching_groups(run: Run, found: RolloutFilter) -> QuerySet:
    """``{"step", "group"}`` of every group with a matching completion, in order."""
    return matching(run, found).values("step", "group").distinct().order_by("step", "group")


@dataclass(frozen=True)
class ShownGroup:
    step: int
    group: int
    rollouts: list[Rollout]
    """All of the group's stored completions, by sample."""
    matched: set[int]
    """Ids of those that pass the filter."""
    flags: dict[int, example_proposals.Flag]
    """Rollout id -> the proposal its verdict was flagged in."""


def shown_groups(run: Run, pairs: list[dict[str, int]], found: RolloutFilter) -> list[ShownGroup]:
    """The completions of these groups, which of them match, and their flags."""
    if not pairs:
        return []
    where = reduce(operator.or_, (Q(step=p["step"], group=p["group"]) for p in pairs))
    rows = list(run.rollouts.filter(where).order_by("step", "group", "sample"))
    matched = set(matching(run, found).filter(where).values_list("id", flat=True))
    flags = flags_of(run, [r.pk for r in rows])
    by_pair: dict[tuple[int, int], list[Rollout]] = {}
    for row in rows:
        by_pair.setdefault((row.step, row.group), []).append(row)
    return [
        ShownGroup(
            p["step"],
            p["group"],
            by_pair.get((p["step"], p["group"]), []),
            matched,
            flags,
        )
        for p in pairs
    ]


def flags_of(run: Run, rollout_ids: list[int]) -> dict[int, example_proposals.Flag]:
    keys = {source_key(pk): pk for pk in rollout_ids}
    found = example_proposals.of_sources(run.team, keys)
    return {keys[key]: proposal for key, proposal in found.items()}


def source_key(rollout_id: int) -> str:
    return f"rollout:{rollout_id}"


# --- flagging a verdict --------------------------------------------------------------------


def flag(user: AbstractBaseUser, rollout: Rollout, note: str = "") -> example_proposals.Flag:
    """Propose the completion as a labelled example with the label its verdict should have
    had; a 400 naming ``rollout`` when it cannot be (no verifier or task recorded, flagged
    already)."""
    run = rollout.run
    if rollout.verifier_version is None or rollout.pool_version is None or not rollout.task_hash:
        why = "this completion records no verifier version or pool task to correct"
        raise field_errors([("rollout", why)])
    expected = pinning.task_expected(rollout.pool_version, rollout.task_hash)
    if expected is None:
        raise field_errors([("rollout", "the task it answered is no longer in its pool version")])
    verdict = example_proposals.Verdict(
        rollout.verifier_version, rollout.passed, rollout.error_type, rollout.reward
    )
    where = f"step {rollout.step}, group {rollout.group}, sample {rollout.sample}"
    source = example_proposals.Source(
        key=source_key(rollout.pk),
        label=f"{run.title} run #{run.number}, {where}",
        path=f"/runs/{run.pk}/rollouts?step={rollout.step}",
        field="rollout",
    )
    return example_proposals.propose(
        user, run.team, verdict, response=rollout.completion, expected=expected, source=source,
        note=note,
    )  # fmt: skip
