import dataclasses

import pytest

from tasks_app.models import PoolJob, PoolVersion
from tasks_app.services import pool_jobs, pools

pytestmark = pytest.mark.django_db


@pytest.fixture
def version(owner, team):
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 4, 2: 4}, seed=0)
    return pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]


@pytest.fixture
def job(owner, version):
    return PoolJob.objects.create(version=version, params={"k": 2}, created_by=owner)


def test_it_queues_a_job_through_the_runner_registered_for_its_kind_after_commit(
    job, monkeypatch, django_capture_on_commit_callbacks
):
    started: list[int] = []
    monkeypatch.setitem(pool_jobs._runners, "grade", started.append)
    with django_capture_on_commit_callbacks(execute=True):
        pool_jobs.queue(job)
        assert started == []
    assert started == [job.pk]


def test_it_refuses_to_queue_a_kind_no_app_runs(version, owner):
    job = PoolJob.objects.create(version=version, kind="distil", created_by=owner)
    with pytest.raises(LookupError, match="'distil'"):
        pool_jobs.queue(job)


def test_it_hands_a_job_to_one_claimant_only(job, version):
    claimed = pool_jobs.claim(job.pk)
    assert claimed == pool_jobs.ClaimedJob(
        id=job.pk, kind="grade", params={"k": 2}, version_number=1, family_kind="arithmetic",
        team_id=version.family.team_id, family="sums",
    )  # fmt: skip
    assert pool_jobs.claim(job.pk) is None
    job.refresh_from_db()
    assert job.status == PoolJob.Status.RUNNING


def test_it_saves_graded_tasks_as_the_next_version_and_finishes_the_job(job, version, owner):
    tasks = pool_jobs.job_tasks(job.pk)
    assert [t.prompt for t in tasks] == [
        row.prompt for row in version.tasks.order_by("position")
    ]
    graded = [dataclasses.replace(t, difficulty=5, meta={"pass_rate": 0.0}) for t in tasks]
    pool_jobs.report_progress(job.pk, 4, 8)
    job.refresh_from_db()
    assert (job.progress, job.message) == (0.5, "4/8 tasks sampled")

    number = pool_jobs.save_graded_version(job.pk, graded, detail={"k": 2}, note="measured")
    job.refresh_from_db()
    assert number == 2 and job.status == PoolJob.Status.SUCCEEDED and job.progress == 1.0
    result = job.result_version
    assert (result.number, result.source, result.created_by) == (2, "grading", owner)
    assert {t.difficulty for t in result.tasks.all()} == {5}


def test_it_reports_a_failure_on_the_job_and_writes_no_version(job):
    pool_jobs.fail(job.pk, "RuntimeError: no model")
    job.refresh_from_db()
    assert job.status == PoolJob.Status.FAILED and job.message == "RuntimeError: no model"
    assert job.finished_at is not None and PoolVersion.objects.count() == 1
