"""Usage of work that is not a run: evaluation jobs and pre-flights count in their team's
usage under their kind, on their job's queue, and in no other team's."""

from __future__ import annotations

from unittest import mock

import pytest

from crucible.accounts.models import Team
from experiments.catalogue import TINY_MODEL
from experiments.models import EvaluationJob, PreflightState, Usage
from experiments.services import evaluation, preflight, usage
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    advertise,
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)

pytestmark = pytest.mark.django_db


def kinds(team: Team) -> dict[tuple[str, str], float]:
    rows = Usage.objects.filter(team=team)
    return {(r.kind, r.queue): r.worker_seconds for r in rows}


def test_it_charges_a_jobs_time_and_tokens_to_its_team_on_its_queue(team, outsider):
    ticks = iter([10.0, 70.0, 100.0])
    meter = usage.JobMeter(
        team.pk, "experiments.tasks.run_preflight", usage.PREFLIGHT, clock=ticks.__next__
    )
    meter.generated(500)
    meter.charge()
    meter.charge()
    row = Usage.objects.get(team=team)  # one row per team, kind, queue, family and month
    assert (row.kind, row.queue, row.run_id) == ("preflight", "cpu", None)
    assert (row.worker_seconds, row.generated_tokens) == (90.0, 500)
    assert not Usage.objects.filter(team__slug="elsewhere").exists()


@pytest.mark.slow
def test_an_evaluation_job_adds_its_worker_time_to_its_team(
    owner,
    team,
    outsider,
    settings,
    models_dir,  # noqa: F811
):
    settings.MODELS_DIR = models_dir
    version, verifier = digit_version(owner, team), digit_verifier(owner, team)
    job = EvaluationJob.objects.create(
        team=team, families=[{"pool_version": version.pk, "verifier_version": verifier.pk,
        "family": "digits"}], k=2, temperature=1.0, max_new_tokens=8, max_tasks=3,
        created_by=owner, model=TINY_MODEL, subject=TINY_MODEL,
    )  # fmt: skip
    evaluation.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == "succeeded", job.message
    used = kinds(team)
    assert list(used) == [("evaluation", "cpu")] and used[("evaluation", "cpu")] > 0
    assert kinds(Team.objects.get(slug="elsewhere")) == {}


@pytest.mark.slow
def test_a_preflight_adds_its_worker_time_and_tokens_to_its_team(
    owner,
    team,
    outsider,
    settings,
    models_dir,  # noqa: F811
):
    settings.MODELS_DIR = models_dir
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    with mock.patch("crucible.jobs.send"):
        report = preflight.start(owner, team, config, tasks_per_level=2)
    preflight.run_job(report.pk)
    report.refresh_from_db()
    assert report.state == PreflightState.SUCCEEDED, report.message
    row = Usage.objects.get(team=team)
    assert (row.kind, row.queue) == ("preflight", "cpu")
    assert row.worker_seconds > 0 and row.generated_tokens > 0
    assert kinds(Team.objects.get(slug="elsewhere")) == {}
