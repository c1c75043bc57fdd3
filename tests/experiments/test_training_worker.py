"""Runs end to end on real Celery worker processes: API → broker → worker → database.

PostgreSQL + Redis (production): a run trains to success with a metric point for every step,
a checkpoint and rollouts; a worker killed with SIGKILL mid-run loses nothing: the next
worker's reaper queues the run again and it resumes from its last checkpoint. The embedded
default (SQLite file + filesystem broker) runs a launched run to success too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest
from django.db import connection

from crucible import jobs
from experiments.catalogue import TINY_MODEL
from experiments.jobs import RUN_TRAINING
from experiments.models import (
    Checkpoint,
    Experiment,
    MetricPoint,
    Rollout,
    Run,
    RunState,
    Worker,
)
from tests.conftest import celery_worker, need_service
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
EVERY_STEP = ("reward/mean", "success", "learning_rate", "perf/tokens_seen", "time/generation_s")
"""Metrics every GRPO step logs, whatever its rewards."""


def drained(process: subprocess.Popen) -> list[str]:
    """Read the worker's output as it comes, so a full pipe never blocks it; the lines."""
    lines: list[str] = []

    def read() -> None:
        for line in iter(process.stdout.readline, b""):
            lines.append(line.decode(errors="replace"))

    threading.Thread(target=read, daemon=True).start()
    return lines


@pytest.fixture
def worker_env(redis_url, tmp_path, models_dir):  # noqa: F811
    if connection.vendor != "postgresql":
        need_service("the worker needs the test database on PostgreSQL (DATABASE_URL)")
    db = connection.settings_dict
    database_url = (
        f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CRUCIBLE_VAR_DIR": str(tmp_path / "var"),
        "CRUCIBLE_MODELS_DIR": str(models_dir),
        "CRUCIBLE_RUNS_DIR": str(tmp_path / "runs"),
        "DJANGO_SETTINGS_MODULE": "crucible.settings.base",
        "WORKER_HEARTBEAT_SECONDS": "1",
        "RUN_STALE_SECONDS": "4",
        "OMP_NUM_THREADS": "1",
    }


def wait_for(predicate, what: str, process: subprocess.Popen, lines: list[str], limit_s=120):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        assert process.poll() is None, "".join(lines)[-4000:]
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}: {''.join(lines)[-4000:]}")


def launch(api, owner, team, **hyper) -> int:
    config = config_for(
        digit_version(owner, team),
        digit_verifier(owner, team),
        hyperparameters=hyper,
        rollout_groups=2,
    )
    body = {"team": "reasoning", "name": "Sort", "config": config}
    created = api.post("/api/v1/experiments/", body, format="json")
    assert created.status_code == 201, created.json()
    launched = api.post(f"/api/v1/experiments/{created.json()['id']}/launch/")
    assert launched.status_code == 202, launched.json()
    return launched.json()["id"]


def finished(run_id: int) -> Run | None:
    run = Run.objects.get(pk=run_id)
    return run if run.finished else None


def steps_by_key(run: Run) -> dict[str, list[int]]:
    found: dict[str, list[int]] = defaultdict(list)
    for key, step in MetricPoint.objects.filter(run=run).values_list("key", "step"):
        found[key].append(step)
    return {key: sorted(steps) for key, steps in found.items()}


def test_it_trains_a_launched_run_to_success_on_a_real_worker(api, owner, team, worker_env):
    started = time.monotonic()
    with celery_worker(worker_env, queues="gpu") as process:
        lines = drained(process)
        wait_for(lambda: Worker.objects.filter(stopped_at=None).exists(), "a heartbeat", process, lines)
        run_id = launch(api, owner, team, max_steps=4, checkpoint_every=2)
        run = wait_for(lambda: finished(run_id), "the run to finish", process, lines)
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    assert (run.attempts, run.step) == (1, 4) and run.worker.startswith("celery@")
    steps = steps_by_key(run)
    assert all(steps[key] == [1, 2, 3, 4] for key in EVERY_STEP), steps
    assert [c.step for c in Checkpoint.objects.filter(run=run)] == [2, 4]
    assert Rollout.objects.filter(run=run, step=4).count() == 2 * 4  # 2 groups of 4 kept
    assert "step 4/4" in run.log_tail and run.summary["reward/mean"] is not None
    print(f"e2e run on a real worker: {time.monotonic() - started:.1f} s")


def test_it_resumes_a_run_whose_worker_was_killed_without_losing_a_step(
    api, owner, team, worker_env
):
    started = time.monotonic()
    max_steps = 16
    with celery_worker(worker_env, queues="gpu") as first:
        lines = drained(first)
        wait_for(lambda: Worker.objects.filter(stopped_at=None).exists(), "a heartbeat", first, lines)
        run_id = launch(api, owner, team, max_steps=max_steps, checkpoint_every=4)
        checkpoint = wait_for(
            lambda: Checkpoint.objects.filter(run_id=run_id).first(), "a checkpoint", first, lines
        )
        os.killpg(first.pid, signal.SIGKILL)  # the whole worker, mid-run, no goodbye
    killed_at = Run.objects.get(pk=run_id)
    assert killed_at.state == RunState.RUNNING and killed_at.step < max_steps

    with celery_worker(worker_env, queues="gpu") as second:
        lines = drained(second)
        run = wait_for(lambda: finished(run_id), "the resumed run", second, lines, limit_s=180)
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    assert run.attempts == 2
    assert run.resumed_from_step is not None and run.resumed_from_step >= checkpoint.step
    assert run.resumed_from_step % 4 == 0
    steps = steps_by_key(run)
    expected = list(range(1, max_steps + 1))
    assert all(steps[key] == expected for key in EVERY_STEP), steps
    assert all(len(s) == len(set(s)) for s in steps.values())  # one point per (key, step)
    tokens = [
        MetricPoint.objects.get(run=run, key="perf/tokens_seen", step=step).value
        for step in expected
    ]
    assert tokens == sorted(tokens) and len(set(tokens)) == max_steps
    assert Checkpoint.objects.filter(run=run, step=max_steps).exists()
    print(f"kill -9 and resume: {time.monotonic() - started:.1f} s")


OUTGROWS_A_GIGABYTE = {
    "prompts_per_step": 256,
    "group_size": 16,
    "micro_batch_size": 16,
    "sampling": {"max_new_tokens": 128},
}
"""4,096 completions sampled at once: their KV cache alone is over a gigabyte."""


def test_it_fails_a_run_that_outgrows_its_workers_memory_and_the_worker_lives_on(
    api, owner, team, worker_env
):
    env = {**worker_env, "WORKER_MEMORY_BYTES": str(2**30)}
    pinned = digit_version(owner, team), digit_verifier(owner, team)

    def experiment(name: str, hyperparameters: dict) -> Experiment:
        config = config_for(*pinned, hyperparameters=hyperparameters, rollout_groups=2)
        body = {"team": "reasoning", "name": name, "config": config}
        created = api.post("/api/v1/experiments/", body, format="json")
        assert created.status_code == 201, created.json()
        return Experiment.objects.get(pk=created.json()["id"])

    with celery_worker(env, queues="gpu") as process:
        lines = drained(process)
        wait_for(lambda: Worker.objects.filter(stopped_at=None).exists(), "a heartbeat", process, lines)
        huge = experiment("Huge", {"max_steps": 3, **OUTGROWS_A_GIGABYTE})
        refused = api.post(f"/api/v1/experiments/{huge.pk}/launch/")
        assert refused.status_code == 400, refused.json()  # sized against the 1 GiB it offers
        assert "the largest worker offers 1.1 GB of memory" in refused.json()["errors"][0]["message"]
        # What the estimate cannot see (prompts longer than it assumes, a smaller worker taking
        # the run) meets the cap at run time: this run is queued as if it had been let through.
        run = Run.objects.create(
            experiment=huge, team=team, number=1, created_by=owner, max_steps=3
        )
        jobs.send(RUN_TRAINING, run.pk)
        failed = wait_for(lambda: finished(run.pk), "the run to fail", process, lines)
        assert failed.state == RunState.FAILED, (failed.failure_reason, failed.log_tail)
        assert failed.failure_reason.startswith("out of memory: "), failed.failure_reason
        assert "can't allocate memory" in failed.failure_reason
        assert process.poll() is None  # the worker is still there...
        small = experiment("Small", {"max_steps": 2})
        launched = api.post(f"/api/v1/experiments/{small.pk}/launch/")
        assert launched.status_code == 202, launched.json()
        after = wait_for(lambda: finished(launched.json()["id"]), "the next run", process, lines)
    assert after.state == RunState.SUCCEEDED, (after.failure_reason, after.log_tail)  # ...and trains
    assert after.worker == failed.worker and after.step == 2


EMBEDDED_SCRIPT = """
import json, time
import django
django.setup()
from crucible.accounts import services as accounts
from django.contrib.auth import get_user_model
from experiments.models import MetricPoint, Run, Worker
from experiments.services import experiments, runs
from tests.experiments.runs_setup import config_for, digit_verifier, digit_version

user = get_user_model().objects.create_user("owner", "o@example.com", "pw")
team = accounts.create_team(user, "Reasoning", "reasoning")
deadline = time.monotonic() + 120
while not Worker.objects.filter(stopped_at=None).exists():
    assert time.monotonic() < deadline, "no worker heartbeat"
    time.sleep(0.5)
config = config_for(digit_version(user, team), digit_verifier(user, team))
experiment = experiments.create_experiment(user, team, name="Sort", config=config)
run = runs.launch(user, experiment)
while not Run.objects.get(pk=run.pk).finished:
    assert time.monotonic() < deadline + 60, "the run did not finish"
    time.sleep(0.5)
run = Run.objects.get(pk=run.pk)
steps = sorted(set(MetricPoint.objects.filter(run=run).values_list("step", flat=True)))
print(json.dumps({"state": run.state, "steps": steps, "reason": run.failure_reason}))
"""


def test_it_runs_a_launched_run_on_the_embedded_default(tmp_path, models_dir):  # noqa: F811
    started = time.monotonic()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        CRUCIBLE_VAR_DIR=str(tmp_path / "var"),
        CRUCIBLE_MODELS_DIR=str(models_dir),
        DJANGO_SETTINGS_MODULE="crucible.settings.base",
        WORKER_HEARTBEAT_SECONDS="1",
        OMP_NUM_THREADS="1",
    )
    migrate = [sys.executable, "manage.py", "migrate", "--noinput"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
    with celery_worker(env) as process:
        lines = drained(process)
        script = subprocess.run(
            [sys.executable, "-c", EMBEDDED_SCRIPT],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert script.returncode == 0, script.stderr[-3000:] + "".join(lines)[-3000:]
    result = json.loads(script.stdout.strip().splitlines()[-1])
    assert result == {"state": "succeeded", "steps": [1, 2, 3], "reason": ""}
    assert (tmp_path / "var" / "runs").is_dir()
    assert TINY_MODEL in os.listdir(models_dir)
    print(f"embedded default run: {time.monotonic() - started:.1f} s")
