"""Evaluation jobs: the tiny model on held-out tasks in this process, claiming and recovery."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from experiments.catalogue import TINY_MODEL
from experiments.models import EvaluationJob, EvaluationState
from experiments.services import evaluation
from tasks_app.services import pinning
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    digit_verifier,
    digit_version,
    models_dir,
)

pytestmark = pytest.mark.django_db


def queued(owner, team, families=None, **settings) -> EvaluationJob:
    families = families or [{"pool_version": 1, "verifier_version": 1, "family": "digits"}]
    return EvaluationJob.objects.create(
        team=team, families=families, k=2, temperature=1.0, max_new_tokens=8, max_tasks=4,
        created_by=owner, **{"model": TINY_MODEL, "subject": TINY_MODEL, **settings},
    )  # fmt: skip


@pytest.mark.slow
def test_it_evaluates_held_out_tasks_k_times_and_stores_each_result(
    owner,
    team,
    settings,
    models_dir,  # noqa: F811
):
    settings.MODELS_DIR = models_dir
    version, verifier = digit_version(owner, team), digit_verifier(owner, team)
    families = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):
        job = evaluation.start(
            owner, team, families, evaluation.Settings(k=3, max_new_tokens=8, max_tasks=5),
            model=TINY_MODEL,
        )  # fmt: skip
    evaluation.run_job(job.pk)
    evaluation.run_job(job.pk)  # a re-delivered message finds it finished and does nothing
    job.refresh_from_db()
    assert job.state == EvaluationState.SUCCEEDED, job.message
    assert job.progress == 1.0 and job.attempts == 1
    held_out = [t.meta["content_hash"] for t in pinning.version_tasks(version.pk, "held_out", 5)]
    results = list(job.results.order_by("id"))
    assert [r.task_hash for r in results] == held_out
    for r in results:
        assert r.family == "digits" and r.k == 3 and 0 <= r.passes <= 3
        assert sum(r.errors.values()) == 3 - r.passes
        assert all("/" in key for key in r.errors)
    assert job.message == f"{len(held_out)} tasks evaluated"


def test_it_takes_back_a_job_whose_worker_stopped_beating(owner, team):
    job = queued(owner, team)
    assert evaluation.claim(job.pk) is not None
    assert evaluation.claim(job.pk) is None  # running, with a fresh heartbeat: someone has it
    later = timezone.now() + timedelta(seconds=evaluation.STALE_SECONDS + 1)
    again = evaluation.claim(job.pk, now=later)
    assert again is not None and again.attempts == 2 and again.state == EvaluationState.RUNNING


def test_it_fails_a_job_whose_workers_keep_dying_with_the_reason(owner, team):
    long_ago = timezone.now() - timedelta(hours=1)
    job = queued(
        owner, team, state=EvaluationState.RUNNING, attempts=evaluation.MAX_ATTEMPTS,
        heartbeat_at=long_ago,
    )  # fmt: skip
    assert evaluation.claim(job.pk) is None
    job.refresh_from_db()
    assert job.state == EvaluationState.FAILED
    assert job.message == f"the worker was lost {evaluation.MAX_ATTEMPTS} times; giving up"


def test_it_fails_a_job_whose_checkpoint_was_deleted_in_the_meantime(owner, team):
    job = queued(owner, team, subject="sort run 1, step 4")
    EvaluationJob.objects.filter(pk=job.pk).update(model="")
    evaluation.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == EvaluationState.FAILED
    assert job.message == "FileNotFoundError: the checkpoint of sort run 1, step 4 was deleted"
