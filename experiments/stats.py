"""The figures of a regression report, as pure functions over per-task outcomes.

A report compares a candidate with a baseline on the same held-out tasks. Per family it
gives each one's success, the difference with a 95% interval from a paired bootstrap over
tasks (Efron & Tibshirani 1993, ch. 13: resample tasks, keep each task's pair together),
and a verdict against the family's regression threshold. The headline is one line naming
what regressed, never a single aggregate score. No Django here: tested without a database.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import comb
from typing import Any

import numpy as np

from . import stability

DEFAULT_RESAMPLES = 2000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_THRESHOLD_PTS = 2.0
"""A family regresses when it drops by more than this many percentage points (and the
interval excludes zero)."""
WORST_TASKS = 10

IMPROVED, UNCHANGED, REGRESSED = "improved", "unchanged", "regressed"


@dataclass(frozen=True)
class Outcome:
    """One held-out task evaluated once with k samples."""

    task_hash: str
    family: str
    difficulty: int
    passes: int
    k: int
    errors: dict[str, int] = field(default_factory=dict)
    """Failed samples by ``<stage>/<error type>`` of the first layer that failed."""
    episodes: dict[str, Any] | None = None
    """A family played as an environment: the task's turn budget and its k episodes
    (``experiments.stability``); None for a single-turn family."""

    @property
    def success(self) -> float:
        """pass@1 estimated from k samples: the share that passed."""
        return self.passes / self.k if self.k else 0.0


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float


def paired_bootstrap(
    candidate: Sequence[float],
    baseline: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
) -> Interval:
    """Mean of ``candidate - baseline`` over paired tasks with a percentile interval.

    Each resample draws tasks with replacement and keeps both scores of a task together,
    so the variance shared by the pair (a hard task is hard for both) cancels out.
    """
    if len(candidate) != len(baseline):
        raise ValueError("candidate and baseline must score the same tasks")
    if not candidate:
        raise ValueError("no tasks to compare")
    diffs = np.asarray(candidate, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(diffs), size=(resamples, len(diffs)))
    means = diffs[picks].mean(axis=1)  # (resamples,)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return Interval(float(diffs.mean()), float(low), float(high))


def verdict(interval: Interval, threshold_pts: float) -> str:
    """Regressed: the whole interval is below zero and the drop exceeds the threshold.
    Improved: the whole interval is above zero. Anything else is unchanged."""
    if interval.high < 0 and -interval.estimate * 100 > threshold_pts:
        return REGRESSED
    if interval.low > 0:
        return IMPROVED
    return UNCHANGED


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples of which c passed (Chen et al. 2021, eq. 1)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


# --- the comparison ------------------------------------------------------------------------


@dataclass(frozen=True)
class FamilyRow:
    family: str
    tasks: int
    candidate: float
    baseline: float
    difference: float
    low: float
    high: float
    threshold_pts: float
    verdict: str


def compare(
    candidate: Iterable[Outcome],
    baseline: Iterable[Outcome],
    thresholds: Mapping[str, float] | None = None,
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
) -> list[FamilyRow]:
    """One row per family, over the tasks both sides evaluated (matched by task hash)."""
    thresholds = thresholds or {}
    base = {(o.family, o.task_hash): o for o in baseline}
    pairs: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for outcome in candidate:
        other = base.get((outcome.family, outcome.task_hash))
        if other is not None:
            pairs[outcome.family].append((outcome.success, other.success))
    rows = []
    for family in sorted(pairs):
        cand, bas = zip(*pairs[family], strict=True)
        ci = paired_bootstrap(cand, bas, resamples=resamples, seed=seed)
        threshold = thresholds.get(family, DEFAULT_THRESHOLD_PTS)
        rows.append(
            FamilyRow(
                family, len(cand), float(np.mean(cand)), float(np.mean(bas)),
                ci.estimate, ci.low, ci.high, threshold, verdict(ci, threshold),
            )
        )  # fmt: skip
    return rows


def headline(rows: Sequence[FamilyRow]) -> str:
    """'no family regressed', or each regressed family with its drop and interval."""
    regressed = [r for r in rows if r.verdict == REGRESSED]
    if not rows:
        return "no family in common to compare"
    if not regressed:
        improved = [r.family for r in rows if r.verdict == IMPROVED]
        return "no family regressed" + (f"; improved: {', '.join(improved)}" if improved else "")
    return "regressed: " + "; ".join(
        f"{r.family} ({_pts(r.difference)} pts, CI [{_pts(r.low)}, {_pts(r.high)}])"
        for r in regressed
    )


def _pts(fraction: float) -> str:
    return f"{fraction * 100:+.1f}".replace("-", "−")


# --- the capability profile ----------------------------------------------------------------


def profile(outcomes: Sequence[Outcome], *, worst: int = WORST_TASKS) -> dict[str, Any]:
    """Success by family and difficulty, failures by verifier layer, the worst tasks,
    pass@1 against pass@k and, for families played as environments, stability over turns
    (``experiments.stability``), for one side of a report."""
    by_level: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    errors: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        by_level[o.family][o.difficulty].append(o.success)
        errors[o.family].update(o.errors)
    return {
        "by_difficulty": {
            family: [
                {"difficulty": d, "success": float(np.mean(v)), "tasks": len(v)}
                for d, v in sorted(levels.items())
            ]
            for family, levels in sorted(by_level.items())
        },
        "errors_by_layer": {f: _by_layer(c) for f, c in sorted(errors.items())},
        "worst_tasks": [
            {key: value for key, value in asdict(o).items() if key != "episodes"}
            | {"success": o.success}
            for o in sorted(outcomes, key=lambda o: (o.success, o.family, o.task_hash))[:worst]
        ],
        "pass_at_k": _pass_at_k(outcomes),
        "stability": stability.profile(outcomes),
    }


def _by_layer(counts: Counter[str]) -> dict[str, dict[str, int]]:
    """``{"semantic/wrong_answer": 3}`` as ``{"semantic": {"wrong_answer": 3}}``."""
    layers: dict[str, dict[str, int]] = defaultdict(dict)
    for key, count in sorted(counts.items()):
        stage, _, error = key.partition("/")
        layers[stage][error or "unknown"] = count
    return dict(layers)


def family_results(outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    """Per family, how many held-out tasks were evaluated and their pass@1 and pass@k: what
    one evaluation found, before any comparison; a family played as an environment adds the
    mean turns its episodes used and the agreement of a task's repeated episodes (both None
    for a single-turn family)."""
    tasks = Counter(o.family for o in outcomes)
    played = stability.profile(outcomes)
    return [
        {
            "family": f, "tasks": tasks[f], **v,
            "mean_turns": played[f]["mean_turns"] if f in played else None,
            "agreement": played[f]["consistency"]["agreement"] if f in played else None,
        }
        for f, v in _pass_at_k(outcomes).items()
    ]  # fmt: skip


def _pass_at_k(outcomes: Sequence[Outcome]) -> dict[str, dict[str, float]]:
    """Per family, the mean pass@1 and pass@k (k the smallest sample count of its tasks)."""
    grouped: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        grouped[o.family].append(o)
    out = {}
    for family, rows in sorted(grouped.items()):
        k = min(o.k for o in rows)
        out[family] = {
            "k": k,
            "pass_at_1": float(np.mean([pass_at_k(o.k, o.passes, 1) for o in rows])),
            "pass_at_k": float(np.mean([pass_at_k(o.k, o.passes, k) for o in rows])),
        }
    return out
