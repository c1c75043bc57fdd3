"""Stability over turns: the capability profile of a family played as an environment.

Pure functions over per-task outcomes; no Django here, tested without a database. An outcome
of such a family carries its k repeated episodes (``Outcome.episodes``, as
``training.evaluation.EpisodeBatch.task_episodes`` wrote them: the task's turn budget and,
per episode, whether it passed, the turns it used, its tokens and its turn and tool errors).
Per family the profile gives:

- ``by_turns_used``: the episodes grouped by the assistant turns they used, and the share of
  each group that passed (a model that wins early and flounders late shows a falling line);
- ``by_budget``: the tasks grouped by their turn budget, with the success and the mean turns
  used of their episodes;
- ``within_turns``: for each t up to the largest budget, the share of all episodes that passed
  using at most t turns (what the success would be under a budget of t turns);
- ``consistency`` of the repeated episodes of a task: the mean share of pairs of a task's
  episodes with the same outcome (``agreement``), the share of tasks whose episodes all agree,
  and pass^j for j = 1..k, the chance that j episodes of a task drawn from its k all pass
  (Yao et al. 2024, tau-bench: ``C(c, j) / C(k, j)`` averaged over tasks), whose fall from
  pass^1 measures how unreliable success is from one episode to the next.

A family whose outcomes carry no episodes (single-turn) has no entry.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from math import comb
from typing import Any, Protocol

from training.evaluation import agreement


class HasEpisodes(Protocol):
    """What the profile reads of an outcome (``experiments.stats.Outcome``)."""

    @property
    def family(self) -> str: ...

    @property
    def episodes(self) -> Mapping[str, Any] | None: ...


def pass_hat_k(passes: int, k: int, j: int) -> float:
    """The chance that j of a task's k episodes, drawn without replacement, all passed."""
    if not 1 <= j <= k:
        raise ValueError(f"pass^{j} needs 1 <= j <= k = {k}")
    return comb(passes, j) / comb(k, j)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def family_stability(tasks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The profile of one family from its tasks' stored episodes (each non-empty)."""
    episodes = [e for task in tasks for e in task["episodes"]]
    k = min(len(task["episodes"]) for task in tasks)
    by_turns: dict[int, list[bool]] = defaultdict(list)
    for e in episodes:
        by_turns[int(e["turns"])].append(bool(e["passed"]))
    by_budget: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for task in tasks:
        by_budget[int(task["turn_budget"])].extend(task["episodes"])
    largest = max([*by_budget, *by_turns, 1])
    passes = [sum(bool(e["passed"]) for e in task["episodes"]) for task in tasks]
    sizes = [len(task["episodes"]) for task in tasks]
    agreements = [agreement(c, n) for c, n in zip(passes, sizes, strict=True)]
    paired = [a for a in agreements if a is not None]
    return {
        "tasks": len(tasks),
        "episodes": len(episodes),
        "k": k,
        "success": _mean([float(e["passed"]) for e in episodes]),
        "mean_turns": _mean([float(e["turns"]) for e in episodes]),
        "mean_budget": _mean([float(task["turn_budget"]) for task in tasks]),
        "tokens_per_episode": _mean([float(e.get("tokens", 0)) for e in episodes]),
        "turn_errors_per_episode": _mean([float(e.get("turn_errors", 0)) for e in episodes]),
        "tool_errors_per_episode": _mean([float(e.get("tool_errors", 0)) for e in episodes]),
        "by_turns_used": [
            {"turns": t, "episodes": len(v), "success": _mean([float(p) for p in v])}
            for t, v in sorted(by_turns.items())
        ],
        "by_budget": [
            {
                "budget": b,
                "episodes": len(v),
                "success": _mean([float(e["passed"]) for e in v]),
                "mean_turns": _mean([float(e["turns"]) for e in v]),
            }
            for b, v in sorted(by_budget.items())
        ],
        "within_turns": [
            {
                "turns": t,
                "success": _mean([float(e["passed"] and e["turns"] <= t) for e in episodes]),
            }
            for t in range(1, largest + 1)
        ],
        "consistency": {
            "agreement": _mean(paired) if paired else None,
            "all_agree": _mean([float(c in (0, n)) for c, n in zip(passes, sizes, strict=True)]),
            "pass_hat_k": [
                {
                    "k": j,
                    "value": _mean(
                        [pass_hat_k(c, n, j) for c, n in zip(passes, sizes, strict=True)]
                    ),
                }
                for j in range(1, k + 1)
            ],
        },
    }


def profile(outcomes: Sequence[HasEpisodes]) -> dict[str, dict[str, Any]]:
    """Per family whose outcomes carry episodes, its stability over turns; {} when none does."""
    grouped: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for o in outcomes:
        if o.episodes and o.episodes.get("episodes"):
            grouped[o.family].append(o.episodes)
    return {family: family_stability(tasks) for family, tasks in sorted(grouped.items())}
