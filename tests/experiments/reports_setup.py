"""What report tests set up: a finished evaluation job with its per-task results."""

from __future__ import annotations

from experiments.catalogue import TINY_MODEL
from experiments.models import EvaluationJob, EvaluationResult, EvaluationState


def finished_job(
    owner, team, passes: list[int], subject: str = "candidate", family: str = "digits"
) -> EvaluationJob:
    """A succeeded job on ``family`` with k = 4: task ``h<i>`` passed ``passes[i]`` times."""
    families = [
        {"family": family, "pool_version": 1, "version_number": 1, "verifier_version": 1,
         "threshold_pts": 2}
    ]  # fmt: skip
    job = EvaluationJob.objects.create(
        team=team, model=TINY_MODEL, subject=subject, families=families, k=4, temperature=1.0,
        max_new_tokens=8, max_tasks=100, created_by=owner, state=EvaluationState.SUCCEEDED,
    )  # fmt: skip
    EvaluationResult.objects.bulk_create(
        EvaluationResult(
            job=job, family=family, pool_version=1, task_hash=f"h{i}", difficulty=2 + i % 2,
            passes=p, k=4, errors={"semantic/wrong_answer": 4 - p} if p < 4 else {},
        )
        for i, p in enumerate(passes)
    )  # fmt: skip
    return job
