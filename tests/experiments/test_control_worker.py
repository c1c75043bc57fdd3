"""Live control on real Celery worker processes (PostgreSQL + Redis).

A curriculum change made while the run trains moves the sampled levels at the next step and
stays through a pause and resume; a paused run holds no worker and resumes from the step it
paused at; a run that crosses its budget pauses itself, and resumes once the budget is raised.
"""

from __future__ import annotations

import time
from collections import defaultdict

import pytest

from experiments.models import (
    Checkpoint,
    MetricPoint,
    Rollout,
    Run,
    RunEvent,
    RunState,
    Usage,
    Worker,
)
from tests.conftest import celery_worker
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)
from tests.experiments.test_training_worker import (  # noqa: F401 (fixtures)
    drained,
    wait_for,
    worker_env,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def launch(api, owner, team, max_steps: int, process, lines, **extra) -> int:
    wait_for(lambda: Worker.objects.filter(stopped_at=None).exists(), "a heartbeat", process, lines)
    version = digit_version(owner, team, counts={2: 30, 3: 30, 4: 30})
    config = config_for(
        version,
        digit_verifier(owner, team),
        hyperparameters={"max_steps": max_steps},
        rollout_groups=4,  # every prompt of a step is stored, with its level
        **extra,
    )
    # All of the mass on level 2 and a policy that keeps it there: only a change moves it.
    config["curriculum"].update(floor=0.0, dynamic=False)
    config["curriculum"]["families"][0]["initial"] = [1, 0, 0]
    body = {"team": "reasoning", "name": "Sort", "config": config}
    created = api.post("/api/v1/experiments/", body, format="json")
    assert created.status_code == 201, created.json()
    launched = api.post(f"/api/v1/experiments/{created.json()['id']}/launch/")
    assert launched.status_code == 202, launched.json()
    return launched.json()["id"]


def run_in(run_id: int, *states: str) -> Run | None:
    run = Run.objects.get(pk=run_id)
    return run if run.state in states else None


def levels_by_step(run_id: int) -> dict[int, set[int]]:
    found: dict[int, set[int]] = defaultdict(set)
    for step, level in Rollout.objects.filter(run_id=run_id).values_list("step", "difficulty"):
        found[step].add(level)
    return dict(found)


def steps_of(run_id: int, key: str) -> list[int]:
    return sorted(MetricPoint.objects.filter(run_id=run_id, key=key).values_list("step", flat=True))


def test_it_moves_the_sampled_levels_a_step_after_a_change_and_keeps_them_through_a_pause(
    api,
    owner,
    team,
    worker_env,  # noqa: F811
):
    started = time.monotonic()
    max_steps = 14
    with celery_worker(worker_env, queues="gpu") as process:
        lines = drained(process)
        run_id = launch(api, owner, team, max_steps, process, lines)
        wait_for(lambda: Run.objects.get(pk=run_id).step >= 2, "two steps", process, lines)
        change = {"families": {"digits": {"distribution": [0, 0, 1]}}}
        response = api.post(f"/api/v1/runs/{run_id}/curriculum/", change, format="json")
        assert response.status_code == 201, response.json()
        event = wait_for(
            lambda: (
                RunEvent.objects.filter(pk=response.json()["id"])
                .exclude(applied_at_step=None)
                .first()
            ),
            "the change to apply",
            process,
            lines,
        )
        assert api.post(f"/api/v1/runs/{run_id}/pause/").json()["pause_requested"]
        paused = wait_for(lambda: run_in(run_id, RunState.PAUSED), "the pause", process, lines)
        assert paused.worker == "" and paused.step < max_steps
        assert Checkpoint.objects.filter(run_id=run_id, step=paused.step).exists()
        assert api.post(f"/api/v1/runs/{run_id}/resume/").json()["state"] == "queued"
        run = wait_for(
            lambda: run_in(run_id, RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED),
            "the resumed run to finish",
            process,
            lines,
            limit_s=180,
        )
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    assert run.attempts == 2 and run.resumed_from_step == paused.step
    applied = event.applied_at_step
    assert applied < paused.step
    levels = levels_by_step(run_id)
    assert sorted(levels) == list(range(1, max_steps + 1))
    # Before the change every task was level 2; from the next step on, level 4, even after
    # the resume (the change lives in the checkpoint's curriculum state).
    assert all(levels[step] == {2} for step in range(1, applied + 1)), levels
    assert all(levels[step] == {4} for step in range(applied + 1, max_steps + 1)), levels
    d4 = dict(
        MetricPoint.objects.filter(run_id=run_id, key="curriculum/digits/d4").values_list(
            "step", "value"
        )
    )
    assert d4[applied] == 0.0 and d4[applied + 1] == 1.0
    assert steps_of(run_id, "reward/mean") == list(range(1, max_steps + 1))  # none lost or twice
    marks = [(e.kind, e.applied_at_step) for e in RunEvent.objects.filter(run_id=run_id)]
    assert marks == [("curriculum", applied), ("pause", paused.step), ("resume", paused.step)]
    print(f"change, pause and resume on a real worker: {time.monotonic() - started:.1f} s")


def test_it_pauses_a_run_over_its_budget_and_resumes_it_with_a_higher_one(
    api,
    owner,
    team,
    worker_env,  # noqa: F811
):
    # Steps take a few hundredths of a second on the decode loop: enough of them that the
    # run cannot finish inside its budget of a few seconds of one process.
    max_steps = 400
    with celery_worker(worker_env, queues="gpu") as process:
        lines = drained(process)
        # A few seconds of one process: loading the model and the first steps cross it.
        run_id = launch(
            api, owner, team, max_steps, process, lines, budget={"max_worker_hours": 0.002}
        )
        paused = wait_for(
            lambda: run_in(run_id, RunState.PAUSED), "the budget stop", process, lines
        )
        assert paused.step < max_steps and paused.worker_seconds >= 0.002 * 3600
        assert (
            paused.pause_reason.startswith("The run used")
            and "raise its budget" in paused.pause_reason
        )
        assert Checkpoint.objects.filter(run_id=run_id, step=paused.step).exists()
        assert RunEvent.objects.get(run_id=run_id, kind="budget").applied_at_step == paused.step
        refused = api.post(f"/api/v1/runs/{run_id}/resume/", {}, format="json")
        assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "budget"
        raised = {"budget": {"max_worker_hours": 1.0}}
        assert api.post(f"/api/v1/runs/{run_id}/resume/", raised, format="json").status_code == 200
        run = wait_for(
            lambda: run_in(run_id, RunState.SUCCEEDED, RunState.FAILED),
            "the resumed run",
            process,
            lines,
            limit_s=180,
        )
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    used = Usage.objects.filter(run_id=run_id)
    assert {u.family for u in used} == {"digits"} and {u.queue for u in used} == {"gpu"}
    assert sum(u.generated_tokens for u in used) == run.generated_tokens > 0
    assert run.worker_seconds > paused.worker_seconds
