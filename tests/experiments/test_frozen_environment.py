"""A pool version freezes its family's environment: editing the family afterwards makes new
versions play the new one, while an experiment pinned to an older version trains, resumes and
is evaluated in the environment its version froze."""

from __future__ import annotations

from unittest import mock

import pytest

from experiments import config as cfg
from experiments.catalogue import TINY_MODEL
from experiments.models import EvaluationState, Rollout, RunState
from experiments.services import evaluation, experiments, runs, training_job
from experiments.services.engine_inputs import build_inputs
from tasks_app.models import PoolVersion
from tasks_app.pools import versions as pure_versions
from tasks_app.services import families, pools, verifiers
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    advertise,
    config_for,
    digit_version,
    models_dir,  # noqa: F811
)

pytestmark = pytest.mark.django_db

FROZEN = {"kind": "guess-number", "limits": {"max_turns": 2}}
EDITED = {"kind": "guess-number", "limits": {"max_turns": 7, "max_total_tokens": 120}}


def guess_family(user, team):
    return families.create_family(
        user, team, name="Guesses", slug="guesses", kind="guess-number", environment=FROZEN
    )


def new_version(user, family) -> tuple[PoolVersion, bool]:
    tasks = pools.generated_tasks(family, {2: 20, 3: 20}, seed=0)
    return pools.version_from_tasks(user, family, tasks, source="generator", detail={}, near=False)


def guess_verifier(user, team):
    verifier = verifiers.create_verifier(
        user, team, name="Last guess", slug="last-guess", family_kind="guess-number"
    )
    return verifier.latest_version()


def edit_environment(user, family, environment):
    family.refresh_from_db()
    return families.update_family(user, family, environment=environment)


def test_a_version_keeps_the_environment_it_was_made_with(api, owner, team):
    family = guess_family(owner, team)
    v1, created = new_version(owner, family)
    assert created and v1.environment == family.environment
    assert v1.environment["limits"]["max_turns"] == 2
    assert new_version(owner, family) == (v1, False)  # same tasks, same environment: no new one

    edited = edit_environment(owner, family, EDITED)
    v1.refresh_from_db()
    assert v1.environment["limits"]["max_turns"] == 2  # the edit left the version alone

    # The same tasks played in another environment are another version, with another hash.
    v2, created = new_version(owner, edited)
    assert created and v2.number == 2
    assert v2.environment == edited.environment
    assert v2.environment["limits"] == {
        "max_turns": 7, "max_tokens_per_turn": 4, "max_total_tokens": 120
    }  # fmt: skip
    assert v2.content_hash != v1.content_hash
    assert v2.diff["added"] == v2.diff["removed"] == 0

    # The version page's API shows what the version froze, read-only.
    body = api.get(f"/api/v1/pool-versions/{v1.pk}/").json()
    assert body["environment"] == v1.environment
    listed = api.get("/api/v1/pool-versions/", {"family": family.pk}).json()["results"]
    assert {v["number"]: v["environment"]["limits"]["max_turns"] for v in listed} == {1: 2, 2: 7}

    # Back to single-turn: a new version of the same tasks with no environment.
    v3, created = new_version(owner, edit_environment(owner, family, None))
    assert created and v3.environment is None


def test_a_single_turn_version_hashes_its_tasks_alone_as_before(owner, team):
    version = digit_version(owner, team)
    assert version.environment is None
    rows = version.tasks.values_list("content_hash", "difficulty")
    summary = pure_versions.summarise(rows, version.held_out_fraction)
    assert version.content_hash == summary.content_hash


def test_a_run_and_an_evaluation_are_built_from_the_frozen_environment(owner, team):
    advertise()
    family = guess_family(owner, team)
    version, _ = new_version(owner, family)
    verifier = guess_verifier(owner, team)
    experiment = experiments.create_experiment(
        owner, team, name="Guess", config=config_for(version, verifier)
    )
    edit_environment(owner, family, EDITED)

    # What the worker trains and resumes with (built afresh each time from the pinned ids).
    inputs = build_inputs(team, cfg.stored(experiment.config))
    assert inputs.environment is not None
    assert inputs.environment.limits.max_turns == 2
    assert inputs.environment.limits.max_total_tokens == 96  # the kind's default, then

    # What an evaluation of the pinned version plays.
    entries = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):
        job = evaluation.start(
            owner, team, entries, evaluation.Settings(k=2, max_tasks=2), model=TINY_MODEL
        )
    played = evaluation._environments(job, {verifier.pk: verifier.spec})
    assert played[version.pk].limits.max_turns == 2


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_edit_after_the_experiment_leaves_its_run_and_evaluation_in_the_frozen_one(
    owner,
    team,
    settings,
    models_dir,  # noqa: F811
    tmp_path,
):
    settings.MODELS_DIR, settings.RUNS_DIR = models_dir, tmp_path / "runs"
    advertise()
    family = guess_family(owner, team)
    version, _ = new_version(owner, family)
    verifier = guess_verifier(owner, team)
    config = config_for(version, verifier, hyperparameters={"max_steps": 1, "prompts_per_step": 2})
    experiment = experiments.create_experiment(owner, team, name="Guess", config=config)
    edit_environment(owner, family, EDITED)

    with mock.patch("crucible.jobs.send"):
        run = runs.launch(owner, experiment)
    training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    rollouts = list(Rollout.objects.filter(run=run))
    assert rollouts
    for rollout in rollouts:
        said = [m for m in rollout.messages if m["role"] == "assistant"]
        assert 1 <= len(said) <= 2  # the frozen limit, not the edited 7

    entries = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):
        job = evaluation.start(
            owner, team, entries, evaluation.Settings(k=2, max_tasks=3), model=TINY_MODEL
        )
    evaluation.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == EvaluationState.SUCCEEDED, job.message
    results = list(job.results.all())
    assert results
    for result in results:
        assert result.episodes is not None
        assert result.episodes["turn_budget"] <= 2
        assert all(1 <= e["turns"] <= 2 for e in result.episodes["episodes"])
