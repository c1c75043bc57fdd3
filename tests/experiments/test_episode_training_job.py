"""A run whose family is played as an environment trains on episodes on the worker: refused by
field where the engine cannot, and each stored rollout carries its conversation."""

from __future__ import annotations

from unittest import mock

import pytest
from rest_framework.exceptions import ValidationError

from experiments.models import MetricPoint, PreflightState, Rollout, RunState
from experiments.services import experiments, preflight, runs, training_job
from tasks_app.services import families, pools, verifiers
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    advertise,
    config_for,
    digit_verifier,
    digit_version,
    models_dir,  # noqa: F811
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def guess_version(user, team, **environment):
    family = families.create_family(
        user,
        team,
        name="Guesses",
        slug="guesses",
        kind="guess-number",
        environment={"kind": "guess-number", **environment},
    )
    tasks = pools.generated_tasks(family, {2: 30, 3: 30}, seed=0)
    return pools.version_from_tasks(user, family, tasks, source="generator", detail={}, near=False)[
        0
    ]


def guess_verifier(user, team):
    verifier = verifiers.create_verifier(
        user, team, name="Last guess", slug="last-guess", family_kind="guess-number"
    )
    return verifier.latest_version()


def refused(owner, team, config) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        experiments.create_experiment(owner, team, name="Guess", config=config)
    return sorted(caught.value.detail)


def test_what_the_engine_cannot_train_on_episodes_is_refused_by_field(owner, team):
    advertise()
    version, verifier = guess_version(owner, team), guess_verifier(owner, team)
    assert refused(owner, team, config_for(version, verifier, algorithm="ppo")) == [
        "config.algorithm"
    ]
    assert refused(
        owner, team, config_for(version, verifier, hyperparameters={"async_verification": True})
    ) == ["config.hyperparameters.async_verification"]
    mixed = config_for(version, verifier)
    mixed["curriculum"]["families"].append(
        {
            "pool_version": digit_version(owner, team).pk,
            "verifier_version": digit_verifier(owner, team).pk,
        }
    )
    assert refused(owner, team, mixed) == ["config.curriculum.families[1]"]


def test_a_run_on_an_environment_trains_on_episodes_and_stores_them(
    api,
    owner,
    team,
    settings,
    models_dir,  # noqa: F811
    tmp_path,
):
    settings.MODELS_DIR, settings.RUNS_DIR = models_dir, tmp_path / "runs"
    advertise()
    version = guess_version(owner, team, limits={"max_turns": 3})
    config = config_for(
        version,
        guess_verifier(owner, team),
        hyperparameters={"max_steps": 2},
        eval={"every": 2, "max_tasks": 4},
        rollout_groups=2,
    )
    experiment = experiments.create_experiment(owner, team, name="Guess", config=config)
    with mock.patch("crucible.jobs.send"):
        run = runs.launch(owner, experiment)
    training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    rollouts = Rollout.objects.filter(run=run)
    assert rollouts.count() == 2 * 2 * 4
    for rollout in rollouts:
        messages = rollout.messages
        assert messages[0]["role"] == "user" and messages[0]["content"] == rollout.prompt
        said = [m for m in messages if m["role"] == "assistant"]
        assert 1 <= len(said) <= 3  # the family's turn limit
        assert all(set(m["verdict"]) == {"error", "info"} for m in said)
        assert "answer" in [layer["name"] for layer in rollout.layers]
    assert MetricPoint.objects.filter(run=run, key="episodes/turns_mean").count() == 2
    assert MetricPoint.objects.filter(run=run, key="eval/episodes/turns_mean", step=2).exists()
    served = api.get(f"/api/v1/runs/{run.pk}/rollouts/", {"page_size": 100}).json()["results"]
    assert {r["id"]: r["messages"] for r in served} == {r.pk: r.messages for r in rollouts}


def test_a_preflight_plays_episodes_of_a_family_played_as_an_environment(
    owner,
    team,
    settings,
    models_dir,  # noqa: F811
):
    settings.MODELS_DIR = models_dir
    advertise()
    config = config_for(guess_version(owner, team), guess_verifier(owner, team))
    with mock.patch("crucible.jobs.send"):
        report = preflight.start(owner, team, config, tasks_per_level=3)
    preflight.run_job(report.pk)
    report.refresh_from_db()
    assert report.state == PreflightState.SUCCEEDED, report.message
    (family,) = report.result["families"]
    assert family["family"] == "guesses"
    assert report.result["completions"] == 2 * 3 * 4  # levels x tasks x episodes per task
