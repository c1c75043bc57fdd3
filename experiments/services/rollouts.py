"""The rollout inspector: a run's stored completions filtered, searched and grouped; and a
verdict flagged as wrong, which proposes the completion (or one turn of an episode) as a
labelled example to the team that owns the verifier (``tasks_app.services.example_proposals``).

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
    turn_flags: dict[int, list[example_proposals.Flag]]
    """Rollout id -> the proposals its episode's turns were flagged in."""


def shown_groups(run: Run, pairs: list[dict[str, int]], found: RolloutFilter) -> list[ShownGroup]:
    """The completions of these groups, which of them match, and their flags."""
    if not pairs:
        return []
    where = reduce(operator.or_, (Q(step=p["step"], group=p["group"]) for p in pairs))
    rows = list(run.rollouts.filter(where).order_by("step", "group", "sample"))
    matched = set(matching(run, found).filter(where).values_list("id", flat=True))
    flags, turn_flags = flags_of(run, rows), turn_flags_of(run, rows)
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
            turn_flags,
        )
        for p in pairs
    ]


def flags_of(run: Run, rows: list[Rollout]) -> dict[int, example_proposals.Flag]:
    """Rollout id -> the proposal its whole verdict was flagged in."""
    keys = {source_key(row.pk): row.pk for row in rows}
    found = example_proposals.of_sources(run.team, keys)
    return {keys[key]: proposal for key, proposal in found.items()}


def turn_flags_of(run: Run, rows: list[Rollout]) -> dict[int, list[example_proposals.Flag]]:
    """Rollout id -> the proposals its episode's turns were flagged in, by turn."""
    keys = {
        source_key(row.pk, index): row.pk for row in rows for index in assistant_turns(row.messages)
    }
    found = example_proposals.of_sources(run.team, keys)
    by_rollout: dict[int, list[example_proposals.Flag]] = {}
    for key, proposal in sorted(found.items(), key=lambda item: item[1].turn or 0):
        by_rollout.setdefault(keys[key], []).append(proposal)
    return by_rollout


def source_key(rollout_id: int, turn: int | None = None) -> str:
    return f"rollout:{rollout_id}" if turn is None else f"rollout:{rollout_id}/turn:{turn}"


def assistant_turns(messages: object) -> list[int]:
    """The indexes of an episode's assistant messages (none when it is no episode)."""
    if not isinstance(messages, list):
        return []
    return [
        i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"
    ]


# --- flagging a verdict --------------------------------------------------------------------


def flag(
    user: AbstractBaseUser, rollout: Rollout, note: str = "", turn: int | None = None
) -> example_proposals.Flag:
    """Propose the completion as a labelled example with the label its verdict should have
    had; a 400 naming ``rollout`` when it cannot be (no verifier or task recorded, flagged
    already). With ``turn`` (an index in the episode's messages), only that assistant turn's
    verdict is disputed: the proposal holds the conversation up to and including the turn,
    labelled good when the environment found an error in it, bad when it found none; a 400
    naming ``turn`` when the rollout is no episode or that message is no assistant turn."""
    run = rollout.run
    episode = None if turn is None else episode_turn(rollout, turn)
    if rollout.verifier_version is None or rollout.pool_version is None or not rollout.task_hash:
        why = "this completion records no verifier version or pool task to correct"
        raise field_errors([("rollout", why)])
    expected = pinning.task_expected(rollout.pool_version, rollout.task_hash)
    if expected is None:
        raise field_errors([("rollout", "the task it answered is no longer in its pool version")])
    where = f"step {rollout.step}, group {rollout.group}, sample {rollout.sample}"
    if episode is None:
        verdict = example_proposals.Verdict(
            rollout.verifier_version, rollout.passed, rollout.error_type, rollout.reward
        )
        response = rollout.completion
    else:
        error = turn_error(episode.messages[-1])
        verdict = example_proposals.Verdict(rollout.verifier_version, error is None, error or "")
        response = turn_text(episode.messages[-1])
        number = assistant_turns(rollout.messages).index(episode.turn) + 1
        where += f", turn {number}"
    source = example_proposals.Source(
        key=source_key(rollout.pk, turn),
        label=f"{run.title} run #{run.number}, {where}",
        path=f"/runs/{run.pk}/rollouts?step={rollout.step}",
        field="rollout" if turn is None else "turn",
    )
    return example_proposals.propose(
        user, run.team, verdict, response=response, expected=expected, source=source,
        note=note, episode=episode,
    )  # fmt: skip


def episode_turn(rollout: Rollout, turn: int) -> example_proposals.Turn:
    """The conversation up to and including assistant turn ``turn``; a 400 naming ``turn``
    with the reason when the rollout has no such turn."""
    messages = rollout.messages
    if not isinstance(messages, list) or not messages:
        raise field_errors([("turn", "this rollout is not an episode: flag its whole verdict")])
    if turn >= len(messages):
        why = f"out of range: the episode has {len(messages)} messages (0 to {len(messages) - 1})"
        raise field_errors([("turn", why)])
    if turn not in assistant_turns(messages):
        role = messages[turn].get("role") if isinstance(messages[turn], dict) else None
        raise field_errors([("turn", f"message {turn} is a {role} message, not an assistant turn")])
    return example_proposals.Turn(messages[: turn + 1], turn)


def turn_error(message: dict) -> str | None:
    """The environment's verdict on an assistant turn: its error, None when it was fine."""
    verdict = message.get("verdict")
    error = verdict.get("error") if isinstance(verdict, dict) else None
    return str(error) if error else None


def turn_text(message: dict) -> str:
    """An assistant turn as text: what it said, then each tool call as ``name(arguments)``."""
    lines = [str(message.get("content") or "")] if message.get("content") else []
    for call in message.get("tool_calls") or []:
        function = call.get("function", {}) if isinstance(call, dict) else {}
        lines.append(f"{function.get('name', '')}({function.get('arguments', '')})")
    return "\n".join(lines)
