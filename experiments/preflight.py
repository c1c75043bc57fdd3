"""Pre-flight: what sampling the model on a slice of each family's pool predicts for a run.

Pure Python (no Django): the job (``experiments.services.preflight``) samples G completions per
task and verifies them; this module turns those verdicts into the report. Per family and
difficulty level: the pass rate, the share of groups whose G rewards are all equal
(``frac_reward_zero_std``: groups that teach nothing, computed as the engine computes it), the
verifier's latency and its error types; then warnings that say what to change before the run
spends its compute.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from training.losses import normalize_and_clip, zero_std_groups

SOLVED_PASS_RATE = 0.95
"""A level at or above this pass rate is solved: its groups mostly all pass and teach nothing."""
UNSOLVED_PASS_RATE = 0.05
"""A level below this pass rate is (almost) never solved: no reward to learn from yet."""
ZERO_SIGNAL_WARNING = 0.5
"""Warn when at least this share of a family's groups carries no learning signal."""
DOMINANT_ERROR = 0.5
"""Warn when one error type rejects at least this share of a family's completions."""
SLOW_VERIFIER_S = 1.0
"""Warn when the verifier's 95th-percentile latency per completion exceeds this."""

# What to check when one error type dominates; error types absent here are the task's own
# failures (a wrong answer), which the pass rates already show.
ERROR_ADVICE = {
    "format_error": ("format", "check the prompt template"),
    "parse_error": ("parse errors", "check the prompt template"),
    "schema_error": ("the schema", "check the prompt template and the schema"),
    "length_limit": ("length", "check max_new_tokens against the length constraint"),
    "timeout": ("timeouts", "check the sandbox's time limit"),
    "memory_limit": ("memory", "check the sandbox's memory limit"),
    "output_limit": ("output size", "check the sandbox's output limit"),
    "sandbox_error": ("sandbox errors", "check the sandbox on the verification workers"),
    "verifier_error": ("verifier errors", "check the verifier and the tasks' expected data"),
}


@dataclass(frozen=True)
class Judged:
    """One verified completion of the pre-flight."""

    level: int
    group: int
    """Index of its task within the family's slice: the G completions of a task form a group."""
    reward: float
    """The verifier's reward, the run's ``unscorable_reward`` where it could not score."""
    passed: bool
    error_type: str
    """Empty when it passed."""
    seconds: float
    """How long the verifier took to judge it."""


@dataclass(frozen=True)
class RewardShaping:
    """What the run does to rewards before its advantages: the zero-signal test sees the same."""

    normalization: str = "none"
    clip: float | None = None


def family_report(
    family: str,
    judged: Sequence[Judged],
    group_size: int,
    shaping: RewardShaping = RewardShaping(),
) -> dict[str, Any]:
    """Per level and over the family: pass rate, zero-signal share, latency, error types.

    ``judged`` holds whole groups, each group's G completions together and in order.
    """
    flat = _flat_groups(judged, group_size, shaping)
    by_level: dict[int, list[int]] = defaultdict(list)
    for row, item in enumerate(judged):
        by_level[item.level].append(row)
    levels = [
        _summary([judged[r] for r in rows], [flat[r] for r in rows], group_size) | {"level": level}
        for level, rows in sorted(by_level.items())
    ]
    return {
        "family": family,
        **_summary(judged, flat, group_size),
        "levels": levels,
        "latency_ms": latency_ms([j.seconds for j in judged]),
        "error_types": dict(Counter(j.error_type for j in judged if j.error_type).most_common()),
    }


def _flat_groups(
    judged: Sequence[Judged], group_size: int, shaping: RewardShaping
) -> list[bool | None]:
    """Per completion: its group's rewards are all equal (None with groups of one)."""
    if group_size < 2 or not judged:
        return [None] * len(judged)
    rewards = torch.tensor([j.reward for j in judged], dtype=torch.float32)
    shaped = normalize_and_clip(rewards, shaping.normalization, shaping.clip)
    return [bool(v) for v in zero_std_groups(shaped, group_size)]


def _summary(
    judged: Sequence[Judged], flat: Sequence[bool | None], group_size: int
) -> dict[str, Any]:
    n = len(judged)
    groups = list(flat[::group_size])  # the rows of a group are together: one flag each
    counted = [f for f in groups if f is not None]
    return {
        "tasks": len(groups),
        "completions": n,
        "pass_rate": _share(sum(j.passed for j in judged), n),
        "mean_reward": sum(j.reward for j in judged) / n if n else None,
        "frac_reward_zero_std": _share(sum(counted), len(counted)),
    }


def _share(count: float, total: int) -> float | None:
    return count / total if total else None


def latency_ms(seconds: Sequence[float]) -> dict[str, float | None]:
    """p50, p95 and max in milliseconds (nearest rank); None without completions."""
    ordered = sorted(seconds)
    if not ordered:
        return {"p50": None, "p95": None, "max": None}

    def rank(q: float) -> float:
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000

    return {"p50": rank(0.5), "p95": rank(0.95), "max": ordered[-1] * 1000}


# --- warnings ------------------------------------------------------------------------------


def warnings_for(family: dict[str, Any], group_size: int) -> list[dict[str, Any]]:
    """What to change, for one family's report, most important first."""
    name = family["family"]
    found = [
        *_curriculum_warnings(family["levels"]),
        *_error_warnings(family),
        *_signal_warnings(family, group_size),
        *_latency_warnings(family),
    ]
    return [{"family": name, **w, "message": f"{name}: {w['message']}"} for w in found]


def _curriculum_warnings(levels: Sequence[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    rated = [lv for lv in levels if lv["pass_rate"] is not None]
    solved = [lv["level"] for lv in rated if lv["pass_rate"] >= SOLVED_PASS_RATE]
    unsolved = [lv["level"] for lv in rated if lv["pass_rate"] < UNSOLVED_PASS_RATE]
    # The easiest levels, up to the first one not solved: what "move up" skips.
    easy = [lv["level"] for lv in itertools.takewhile(lambda lv: lv["level"] in solved, rated)]
    if not rated:
        return
    if len(solved) == len(rated):
        yield _warning(
            "all_solved", solved, "every level is solved: nothing is left to learn here; "
            "add harder levels or drop the family"
        )  # fmt: skip
    elif len(unsolved) == len(rated):
        yield _warning(
            "none_solved", unsolved, "no level is ever solved: there is no reward to learn "
            "from; start with easier levels, warm-start the model or give partial credit"
        )  # fmt: skip
    elif easy:
        start = rated[len(easy)]["level"]
        top = f", {_levels(unsolved)} never solved" if unsolved else ""
        yield _warning(
            "move_up", easy + unsolved, f"{_levels(easy)} solved{top}: move the curriculum "
            f"up (start at level {start})"
        )  # fmt: skip
    elif unsolved:
        yield _warning(
            "out_of_reach", unsolved, f"{_levels(unsolved)} never solved: no signal there "
            "until the model improves; keep its share small at first", severity="info"
        )  # fmt: skip


def _error_warnings(family: dict[str, Any]) -> Iterable[dict[str, Any]]:
    total = family["completions"]
    for error_type, count in family["error_types"].items():
        if error_type in ERROR_ADVICE and total and count / total >= DOMINANT_ERROR:
            what, advice = ERROR_ADVICE[error_type]
            message = f"the verifier rejects {_percent(count / total)} on {what}: {advice}"
            yield _warning(f"errors:{error_type}", [], message)


def _signal_warnings(family: dict[str, Any], group_size: int) -> Iterable[dict[str, Any]]:
    share = family["frac_reward_zero_std"]
    if share is None or share < ZERO_SIGNAL_WARNING:
        return
    flat = [lv["level"] for lv in family["levels"] if (lv["frac_reward_zero_std"] or 0) >= 0.5]
    yield _warning(
        "zero_signal", flat, f"{_percent(share)} of groups get the same reward for all "
        f"{group_size} answers and teach nothing: raise the group size or the temperature, "
        "move the curriculum, or drop such groups (drop_zero_std_groups)"
    )  # fmt: skip


def _latency_warnings(family: dict[str, Any]) -> Iterable[dict[str, Any]]:
    p95 = family["latency_ms"]["p95"]
    if p95 is not None and p95 / 1000 > SLOW_VERIFIER_S:
        yield _warning(
            "slow_verifier", [], f"the verifier takes {p95 / 1000:.1f} s per completion at "
            "p95: verification will hold up every step; give the cpu queue more workers or "
            "a faster verifier"
        )  # fmt: skip


def _warning(
    code: str, levels: Sequence[int], message: str, severity: str = "warning"
) -> dict[str, Any]:
    return {"code": code, "severity": severity, "levels": sorted(levels), "message": message}


def _levels(levels: Sequence[int]) -> str:
    """``level 5 is``, ``levels 1–2 are``, ``levels 1, 3 and 5 are``."""
    ordered = sorted(levels)
    if len(ordered) == 1:
        return f"level {ordered[0]} is"
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"levels {ordered[0]}–{ordered[-1]} are"
    return f"levels {', '.join(map(str, ordered[:-1]))} and {ordered[-1]} are"


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def run_size_warnings(steps: int, prompts_per_step: int, least: int | None) -> list[dict[str, Any]]:
    """A warning when the run plans fewer prompts than ``least`` (``MIN_PROMPTS_TO_LEARN``,
    measured on the demo task; None: no floor)."""
    planned = steps * prompts_per_step
    if least is None or planned >= least:
        return []
    message = (
        f"{steps} steps x {prompts_per_step} prompts is {planned:,} prompts, too few to move "
        f"the policy (on the demo task every preset needed {least:,} to lift held-out "
        "success): raise max_steps or prompts_per_step"
    )
    return [{"family": "", **_warning("too_few_prompts", [], message)}]


# --- the whole report ----------------------------------------------------------------------


def report(
    families: Sequence[dict[str, Any]],
    group_size: int,
    run_warnings: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The families' reports, every warning (``run_warnings``, about the whole run, first),
    and the totals over all families."""
    completions = sum(f["completions"] for f in families)
    groups = [(f["tasks"], f["frac_reward_zero_std"]) for f in families]
    counted = [(n, share) for n, share in groups if share is not None]
    passed = sum((f["pass_rate"] or 0) * f["completions"] for f in families)
    return {
        "families": list(families),
        "warnings": [*run_warnings, *(w for f in families for w in warnings_for(f, group_size))],
        "pass_rate": _share(passed, completions),
        "frac_reward_zero_std": _share(
            sum(n * share for n, share in counted), sum(n for n, _ in counted)
        ),
        "completions": completions,
    }
