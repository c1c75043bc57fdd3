"""Worker heartbeats, the models running workers offer, and the reaper of orphaned runs."""

from __future__ import annotations

import json
import logging
import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from experiments import memory
from experiments.catalogue import TINY_MODEL
from experiments.models import Experiment, Run, RunState, Worker
from experiments.services import workers
from training import digits
from training.models import build_tiny_model, save_model, train_tokenizer

pytestmark = pytest.mark.django_db


@pytest.fixture
def models_dir(tmp_path, settings):
    settings.MODELS_DIR = tmp_path / "models"
    tokenizer = train_tokenizer(digits.corpus(100))
    save_model(build_tiny_model(tokenizer, 1, 16), tokenizer, settings.MODELS_DIR / "small")
    return settings.MODELS_DIR


@pytest.fixture
def run(owner, team):
    experiment = Experiment.objects.create(team=team, name="e", config={}, config_hash="x")
    return Run.objects.create(experiment=experiment, team=team, number=1, created_by=owner)


def running(run: Run, heartbeat_age_s: float, **fields) -> Run:
    now = timezone.now()
    Run.objects.filter(pk=run.pk).update(
        state=RunState.RUNNING,
        worker="celery@lost",
        started_at=now - timedelta(seconds=heartbeat_age_s + 1),
        heartbeat_at=now - timedelta(seconds=heartbeat_age_s),
        **fields,
    )
    run.refresh_from_db()
    return run


def worker_row(name: str, loadable: list[str], *, age_s: float = 0, **fields) -> Worker:
    entries = [
        {"name": n, "path": n, "builtin": n == TINY_MODEL, "parameters": None, "ready": True}
        for n in loadable
    ]
    return Worker.objects.create(
        name=name,
        queues=fields.pop("queues", ["cpu", "gpu"]),
        loadable=entries,
        heartbeat_at=timezone.now() - timedelta(seconds=age_s),
        **fields,
    )


@pytest.fixture
def gpu_queue(redis_url):
    """The broker's gpu queue, emptied before and after: what the reaper sent to it."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.delete("gpu")
    yield lambda: [json.loads(raw) for raw in client.lrange("gpu", 0, -1)]
    client.delete("gpu")


def test_it_records_what_a_worker_can_load_with_each_beat(models_dir):
    first = workers.beat("celery@a", ["gpu", "cpu"])
    second = workers.beat("celery@a", ["gpu", "cpu"])

    assert Worker.objects.count() == 1 and second.heartbeat_at >= first.heartbeat_at
    names = [entry["name"] for entry in second.loadable]
    assert names == [TINY_MODEL, "small"]
    assert second.loadable[1]["path"] == "small" and second.loadable[1]["parameters"] > 0
    assert second.queues == ["cpu", "gpu"] and second.devices["cpu"] >= 1
    assert second.devices["cuda"] == len(second.devices["names"])


@pytest.fixture
def fresh_devices():
    """The device report is cached per process; these tests change what it reads."""
    workers.devices.cache_clear()
    yield
    workers.devices.cache_clear()


def test_it_advertises_the_memory_it_offers_runs_and_each_models_sizes(
    models_dir, settings, fresh_devices
):
    settings.WORKER_MEMORY_BYTES = 3 * 2**30
    worker = workers.beat("celery@a", ["gpu"])
    assert worker.devices["memory"] == 3 * 2**30
    assert len(worker.devices["gpu_memory"]) == worker.devices["cuda"]
    small = worker.loadable[1]
    assert small["shape"] == {"hidden": 16, "layers": 1, "vocab": small["shape"]["vocab"], "kv_dim": 16}
    assert small["shape"]["vocab"] > 0


def test_it_offers_what_the_machine_allows_unless_configured(models_dir, settings, fresh_devices):
    settings.WORKER_MEMORY_BYTES = 0
    assert workers.beat("celery@a", ["gpu"]).devices["memory"] == memory.machine_memory() > 0


def test_it_marks_a_worker_stopped_until_it_beats_again(models_dir):
    workers.beat("celery@a", ["gpu"])
    workers.mark_stopped("celery@a")
    assert Worker.objects.get().stopped_at is not None
    assert workers.available_models().workers == 0
    workers.beat("celery@a", ["gpu"])
    assert Worker.objects.get().stopped_at is None


def test_it_offers_the_union_of_the_running_workers_models(settings):
    settings.RUN_STALE_SECONDS = 60
    worker_row("celery@a", [TINY_MODEL, "qwen"])
    worker_row("celery@b", [TINY_MODEL, "llama"], queues=["cpu"])
    worker_row("celery@dead", ["ghost"], age_s=120)
    worker_row("celery@gone", ["gone"], stopped_at=timezone.now())

    available = workers.available_models()
    assert [m["name"] for m in available.models] == [TINY_MODEL, "llama", "qwen"]
    assert available.models[0]["workers"] == ["celery@a", "celery@b"]
    assert available.workers == 2 and available.detail == ""
    assert [m["name"] for m in workers.available_models("gpu").models] == [TINY_MODEL, "qwen"]


def test_it_says_clearly_when_no_worker_is_running():
    worker_row("celery@dead", [TINY_MODEL], age_s=3600)
    available = workers.available_models()
    assert available.models == [] and available.workers == 0
    assert available.detail.startswith("No worker is running") and "make run" in available.detail
    assert workers.model_problem(TINY_MODEL) == available.detail


def test_it_names_what_is_available_when_a_model_is_not():
    worker_row("celery@a", [TINY_MODEL, "qwen"])
    assert workers.model_problem("qwen") is None
    assert workers.model_problem("/models/Qwen2.5-0.5B-Instruct") == (
        "no running worker can load '/models/Qwen2.5-0.5B-Instruct'; available: qwen, "
        f"{TINY_MODEL}"
    )
    assert workers.model_problem("qwen", queue="default") is not None


def test_it_queues_a_run_whose_worker_went_silent_and_sends_it_again(
    run, settings, gpu_queue, django_capture_on_commit_callbacks
):
    settings.RUN_STALE_SECONDS = 30
    running(run, heartbeat_age_s=31)

    with django_capture_on_commit_callbacks(execute=True):
        assert workers.reap_stale_runs() == [run.pk]

    run.refresh_from_db()
    assert (run.state, run.worker, run.heartbeat_at) == (RunState.QUEUED, "", None)
    [message] = gpu_queue()
    assert message["headers"]["task"] == "experiments.tasks.run_training"
    assert message["headers"]["argsrepr"] == f"[{run.pk}]"


def test_it_leaves_runs_with_a_fresh_heartbeat_and_requeues_only_once(
    run, settings, gpu_queue, django_capture_on_commit_callbacks
):
    settings.RUN_STALE_SECONDS = 30
    running(run, heartbeat_age_s=5)
    assert workers.reap_stale_runs() == []

    running(run, heartbeat_age_s=60)
    stale = list(workers.stale_runs())
    with django_capture_on_commit_callbacks(execute=True):
        assert workers.reap_stale_runs() == [run.pk]
        # A second reaper that listed the run before the first took it finds nothing to do.
        assert [workers._requeue(r, None) for r in stale] == [False]
    assert len(gpu_queue()) == 1


def test_it_cancels_instead_of_requeueing_a_stale_run_that_was_being_cancelled(
    run, settings, gpu_queue
):
    settings.RUN_STALE_SECONDS = 30
    running(run, heartbeat_age_s=60, cancel_requested=True)
    assert workers.reap_stale_runs() == []
    run.refresh_from_db()
    assert run.state == RunState.CANCELLED and run.finished_at is not None
    assert gpu_queue() == []


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_heartbeat_of_the_run_it_trains_fresh(settings, run):
    running(run, heartbeat_age_s=300)
    with workers.keep_alive(run.pk, interval_s=0.05):
        time.sleep(0.5)
    run.refresh_from_db()
    assert timezone.now() - run.heartbeat_at < timedelta(seconds=5)


@pytest.mark.django_db(transaction=True)
def test_it_keeps_beating_through_database_errors(models_dir, monkeypatch, caplog):
    heartbeat = workers.Heartbeat("celery@flaky", ["gpu"], interval_s=0.05)
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) <= 3:
            raise OperationalError("the database is restarting")
        return real_beat(*args, **kwargs)

    real_beat = workers.beat
    monkeypatch.setattr(workers, "beat", failing)
    with caplog.at_level(logging.WARNING, logger="experiments.services.workers"):
        heartbeat.start()
        deadline = time.monotonic() + 10
        while not Worker.objects.filter(name="celery@flaky").exists():
            assert time.monotonic() < deadline and heartbeat.is_alive()
            time.sleep(0.05)
        heartbeat.stop()
    failures = [r for r in caplog.records if r.getMessage() == "worker.heartbeat_failed"]
    assert len(failures) == 1  # logged once per outage, not once per beat


def test_it_sends_again_a_run_queued_too_long_once_per_period(
    run, settings, gpu_queue, django_capture_on_commit_callbacks
):
    settings.RUN_QUEUED_RESEND_SECONDS = 300
    Run.objects.filter(pk=run.pk).update(queued_at=timezone.now() - timedelta(seconds=60))
    assert workers.resend_queued_runs() == []

    Run.objects.filter(pk=run.pk).update(queued_at=timezone.now() - timedelta(seconds=301))
    forgotten = list(workers.forgotten_runs().values_list("id", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        assert workers.resend_queued_runs() == [run.pk]
        # A second reaper that listed the run before the first sent it finds nothing to do.
        assert workers.resend_queued_runs() == [] and forgotten == [run.pk]
    [message] = gpu_queue()
    assert message["headers"]["argsrepr"] == f"[{run.pk}]"
    run.refresh_from_db()
    assert run.state == RunState.QUEUED and timezone.now() - run.queued_at < timedelta(seconds=5)


def test_it_leaves_running_paused_and_finished_runs_to_their_owners(run, settings, gpu_queue):
    settings.RUN_QUEUED_RESEND_SECONDS = 300
    long_ago = timezone.now() - timedelta(hours=1)
    for state in (RunState.RUNNING, RunState.PAUSED, RunState.SUCCEEDED, RunState.CANCELLED):
        Run.objects.filter(pk=run.pk).update(state=state, queued_at=long_ago)
        assert workers.resend_queued_runs() == [], state
    assert gpu_queue() == []


def test_it_tells_running_stopped_and_gone_workers_apart(settings):
    settings.RUN_STALE_SECONDS = 30
    now = timezone.now()
    alive = Worker(name="a", heartbeat_at=now - timedelta(seconds=5))
    silent = Worker(name="b", heartbeat_at=now - timedelta(seconds=31))
    stopped = Worker(name="c", heartbeat_at=now, stopped_at=now)
    assert [workers.status(w) for w in (alive, silent, stopped)] == ["running", "gone", "stopped"]
