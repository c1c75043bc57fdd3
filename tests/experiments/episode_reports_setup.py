"""What tests of reports on a family played as an environment set up: a finished evaluation
job whose per-task results carry their episodes, written with the ORM (no model runs)."""

from __future__ import annotations

from typing import Any

from experiments.catalogue import TINY_MODEL
from experiments.models import EvaluationJob, EvaluationResult, EvaluationState
from training.evaluation import agreement

# Candidate: solves most tasks, early; baseline: solves fewer, late, and inconsistently.
CANDIDATE = [[(True, 2), (True, 2), (True, 3)], [(True, 3), (True, 4), (False, 5)]] * 6
BASELINE = [[(True, 4), (False, 4), (False, 4)], [(False, 5), (True, 5), (False, 5)]] * 6


def episode(passed: bool, turns: int) -> dict[str, Any]:
    return {
        "passed": passed, "turns": turns, "tokens": 6 * turns, "assistant_tokens": 2 * turns,
        "turn_errors": 0 if passed else 1, "tool_errors": 0, "ended_by": "environment",
    }  # fmt: skip


def finished_episode_job(
    owner, team, played: list[list[tuple[bool, int]]], subject: str, family: str = "guess"
) -> EvaluationJob:
    """A succeeded job on ``family`` played as an environment: task ``g<i>`` (turn budget 4 at
    difficulty 2, 5 at difficulty 3) had the episodes ``played[i]`` ((passed, turns used)
    each)."""
    k = len(played[0])
    families = [
        {"family": family, "pool_version": 1, "version_number": 1, "verifier_version": 1,
         "threshold_pts": 2}
    ]  # fmt: skip
    job = EvaluationJob.objects.create(
        team=team, model=TINY_MODEL, subject=subject, families=families, k=k, temperature=1.0,
        max_new_tokens=4, max_tasks=100, created_by=owner, state=EvaluationState.SUCCEEDED,
    )  # fmt: skip
    rows = []
    for i, episodes in enumerate(played):
        passes = sum(p for p, _ in episodes)
        rows.append(
            EvaluationResult(
                job=job, family=family, pool_version=1, task_hash=f"g{i}", difficulty=2 + i % 2,
                passes=passes, k=k,
                errors={"semantic/wrong_answer": k - passes} if passes < k else {},
                episodes={
                    "turn_budget": 4 + i % 2,
                    "episodes": [episode(p, t) for p, t in episodes],
                    "agreement": agreement(passes, k),
                },
            )
        )  # fmt: skip
    EvaluationResult.objects.bulk_create(rows)
    return job
