"""Evaluation suites: the service's checks, evaluations from a suite, experiments naming one,
and the evaluation queued when such an experiment's run succeeds."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from rest_framework.exceptions import ValidationError

from crucible.accounts.models import AuditEvent
from experiments import config as cfg
from experiments.jobs import RUN_EVALUATION, RUN_TRAINING
from experiments.models import Checkpoint, EvaluationJob, EvaluationSuite, Run, RunState
from experiments.services import evaluation, experiments, runs, suites, training_job
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent():
    with mock.patch("crucible.jobs.send") as send:
        yield send


@pytest.fixture
def pinned(owner, team):
    return digit_version(owner, team), digit_verifier(owner, team)


def errors(exc: pytest.ExceptionInfo) -> dict[str, str]:
    return {field: str(reasons[0]) for field, reasons in exc.value.detail.items()}


def suite_of(owner, team, pinned, name="core", **settings) -> EvaluationSuite:
    version, verifier = pinned
    families = [{"pool_version": version.pk, "verifier_version": verifier.pk, "threshold_pts": 5}]
    return suites.create_suite(
        owner, team, name=name, families=families,
        settings_=evaluation.Settings(**{"k": 3, "max_tasks": 7, **settings}),
    )  # fmt: skip


# --- the service ---------------------------------------------------------------------------


def test_it_saves_a_suite_with_its_families_resolved_and_audits_it(owner, team, pinned):
    version, verifier = pinned
    suite = suite_of(owner, team, pinned, temperature=0.5)
    assert suite.families == [
        {"family": "digits", "pool_version": version.pk, "version_number": version.number,
         "verifier_version": verifier.pk, "threshold_pts": 5.0}
    ]  # fmt: skip
    assert (suite.k, suite.temperature, suite.max_new_tokens, suite.max_tasks) == (3, 0.5, 16, 7)
    assert AuditEvent.objects.filter(action="evaluation_suite.created").count() == 1


def test_it_names_a_pool_version_outside_the_team(owner, team, pinned, outsider):
    elsewhere = digit_version(outsider, outsider.memberships.get().team, slug="theirs")
    families = [{"pool_version": elsewhere.pk, "verifier_version": pinned[1].pk}]
    with pytest.raises(ValidationError) as exc:
        suites.create_suite(
            owner, team, name="x", families=families, settings_=evaluation.Settings()
        )
    assert errors(exc) == {"families[0].pool_version": "no such pool version in the team"}
    assert not EvaluationSuite.objects.exists()


def test_it_names_a_verifier_version_of_another_team(owner, team, pinned, outsider):
    theirs = digit_verifier(outsider, outsider.memberships.get().team, slug="their-sort")
    families = [{"pool_version": pinned[0].pk, "verifier_version": theirs.pk}]
    with pytest.raises(ValidationError) as exc:
        suites.create_suite(
            owner, team, name="x", families=families, settings_=evaluation.Settings()
        )
    assert errors(exc) == {"families[0].verifier_version": "no such verifier version in the team"}


def test_it_refuses_a_name_the_team_already_has(owner, team, pinned):
    suite_of(owner, team, pinned)
    with pytest.raises(ValidationError) as exc:
        suite_of(owner, team, pinned, name=" core ")
    assert errors(exc) == {"name": suites.NAME_TAKEN}
    other = suite_of(owner, team, pinned, name="other")
    with pytest.raises(ValidationError) as exc:
        suites.update_suite(owner, other, name="core")
    assert errors(exc) == {"name": suites.NAME_TAKEN}
    wrong = [{"pool_version": 999_999, "verifier_version": pinned[1].pk}]
    with pytest.raises(ValidationError) as exc:  # every field at fault, in one answer
        suites.update_suite(owner, other, name="core", families=wrong)
    assert errors(exc) == {
        "name": suites.NAME_TAKEN,
        "families[0].pool_version": "no such pool version in the team",
    }
    assert EvaluationSuite.objects.get(pk=other.pk).name == "other"


def test_it_freezes_a_suite_in_use_but_lets_it_be_renamed(owner, team, pinned, sent):
    suite = suite_of(owner, team, pinned)
    suites.start_evaluation(owner, suite, model="tiny-digit-sort")
    with pytest.raises(suites.SuiteInUse) as exc:
        suites.update_suite(owner, suite, k=8)
    assert exc.value.status_code == 409
    assert "used by 1 evaluation job" in errors(exc)["suite"]
    with pytest.raises(suites.SuiteInUse) as exc:
        suites.delete_suite(owner, suite)
    assert "cannot be deleted" in errors(exc)["suite"]
    renamed = suites.update_suite(owner, suite, name="core v1", description="frozen")
    assert (renamed.name, renamed.k) == ("core v1", 3)


def test_it_changes_and_deletes_an_unused_suite(owner, team, pinned):
    suite = suite_of(owner, team, pinned)
    suites.update_suite(owner, suite, k=8, max_new_tokens=32)
    suite.refresh_from_db()
    assert (suite.k, suite.max_new_tokens) == (8, 32)
    suites.delete_suite(owner, suite)
    assert not EvaluationSuite.objects.exists()
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"evaluation_suite.updated", "evaluation_suite.deleted"} <= actions


# --- evaluations from a suite --------------------------------------------------------------


def test_an_evaluation_from_a_suite_copies_its_families_and_settings(owner, team, pinned, sent):
    suite = suite_of(owner, team, pinned, temperature=0.7, max_new_tokens=12, seed=5)
    job = suites.start_evaluation(owner, suite, model="tiny-digit-sort")
    assert job.suite == suite and job.families == suite.families
    assert job.families[0]["threshold_pts"] == 5.0
    settings = (job.k, job.temperature, job.max_new_tokens, job.max_tasks, job.seed)
    assert settings == (3, 0.7, 12, 7, 5)


# --- experiments naming a suite ------------------------------------------------------------


def test_the_pure_config_takes_a_suite_id_and_keeps_old_configs_as_they_were(pinned):
    version, verifier = pinned
    plain = cfg.canonical(config_for(version, verifier, eval={"every": 2}))
    assert "suite" not in plain["eval"]
    named = cfg.parse(config_for(version, verifier, eval={"every": 2, "suite": 9}))
    assert named.eval.suite == 9 and named.to_dict()["eval"]["suite"] == 9
    with pytest.raises(cfg.ConfigError) as exc:
        cfg.parse(config_for(version, verifier, eval={"suite": "core"}))
    assert dict(exc.value.errors) == {
        "eval.suite": "must be the id of an evaluation suite of your team"
    }


def test_an_experiment_evaluates_the_suites_families_in_training(owner, team, pinned):
    advertise()
    suite = suite_of(owner, team, pinned)
    config = config_for(*pinned, eval={"every": 2, "suite": suite.pk})
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    assert experiment.config["eval"] == {
        "every": 2, "families": [pinned[0].pk], "max_tasks": 7, "suite": suite.pk
    }  # fmt: skip
    assert suites.users(suite) == (0, 1)
    with pytest.raises(suites.SuiteInUse):
        suites.delete_suite(owner, suite)


def test_it_refuses_a_suite_of_another_team_or_outside_the_curriculum(
    owner, team, pinned, outsider
):
    advertise()
    theirs = suite_of(outsider, outsider.memberships.get().team, (
        digit_version(outsider, outsider.memberships.get().team, slug="theirs"),
        digit_verifier(outsider, outsider.memberships.get().team, slug="their-sort"),
    ))  # fmt: skip
    with pytest.raises(ValidationError) as exc:
        experiments.resolve_config(team, config_for(*pinned, eval={"suite": theirs.pk}))
    assert errors(exc) == {"config.eval.suite": f"no evaluation suite {theirs.pk} in the team"}
    other = digit_version(owner, team, slug="others")
    wider = suite_of(owner, team, (other, pinned[1]), name="wider")
    with pytest.raises(ValidationError) as exc:
        experiments.resolve_config(team, config_for(*pinned, eval={"suite": wider.pk}))
    assert errors(exc) == {
        "config.eval.suite": f"suite 'wider': pool version {other.pk} (others) is not in the "
        "curriculum"
    }


# --- the end of a run ----------------------------------------------------------------------


def finished_run(owner, team, pinned, tmp_path: Path, settings, eval_: dict) -> Run:
    settings.RUNS_DIR = tmp_path / "runs"
    advertise()
    config = config_for(*pinned, eval=eval_)
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
        run = runs.launch(owner, experiment)
    for step in (2, 4):
        (tmp_path / f"step-{step}" / "model").mkdir(parents=True)
        Checkpoint.objects.create(run=run, step=step, path=str(tmp_path / f"step-{step}"))
    with mock.patch.object(training_job, "attempt", return_value=RunState.SUCCEEDED):
        training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    return run


def test_a_succeeded_run_naming_a_suite_queues_its_final_checkpoints_evaluation(
    owner, team, pinned, sent, tmp_path, settings, django_capture_on_commit_callbacks
):
    suite = suite_of(owner, team, pinned)
    with django_capture_on_commit_callbacks(execute=True):
        run = finished_run(owner, team, pinned, tmp_path, settings, {"suite": suite.pk})
    assert run.state == RunState.SUCCEEDED
    job = EvaluationJob.objects.get()
    assert job.suite == suite and job.checkpoint.step == 4 and job.checkpoint.run == run
    assert (job.k, job.max_tasks, job.families) == (3, 7, suite.families)
    queued = [c.args for c in sent.call_args_list]
    assert queued == [(RUN_TRAINING, run.pk), (RUN_EVALUATION, job.pk)]  # the run, then its final
    assert suites.evaluate_finished_run(run) == job  # a second call queues nothing new
    assert EvaluationJob.objects.count() == 1


def test_a_run_without_a_suite_queues_no_evaluation(owner, team, pinned, sent, tmp_path, settings):
    run = finished_run(owner, team, pinned, tmp_path, settings, {"every": 1})
    assert run.state == RunState.SUCCEEDED and not EvaluationJob.objects.exists()
