"""Workers: heartbeats that advertise what each one can run, and the reaper of orphaned runs.

Every Celery worker process starts a ``Heartbeat`` thread when it is ready (see
``experiments.signals``). Every ``WORKER_HEARTBEAT_SECONDS`` it upserts the worker's row (its
queues, the models of the catalogue, its devices) and reaps runs whose heartbeat went silent
for ``RUN_STALE_SECONDS``: their worker died (kill -9, a lost node), so they go back to the
queue and ``run_training`` is sent again, to resume from their last checkpoint. It also sends
again every run queued for ``RUN_QUEUED_RESEND_SECONDS`` that no worker took: a broker that
restarted without persistence (or a send that failed after the launch committed) lost its
message, and nothing else would ever start it. A duplicate message is harmless: the claim is a
conditional update, so the second one finds the run taken and is dropped.

A worker whose heartbeat stopped without saying it stopped (killed, or dead after a broker
outage) is listed as gone (``is_gone``), and its runs are reaped as above.

A run's own heartbeat is kept by ``keep_alive`` around the training job, in the process that
trains it, so a long step never looks like a dead worker and a dead one always does.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.db.models import Q, QuerySet
from django.utils import timezone

from crucible import jobs
from experiments import catalogue, memory
from experiments.jobs import RUN_TRAINING
from experiments.models import Run, RunSource, RunState, Worker

from . import live, run_events

logger = logging.getLogger(__name__)
NVIDIA_SMI_TIMEOUT_S = 10


@dataclass(frozen=True)
class Availability:
    """The models some running worker can load, for the wizard and the difficulty job."""

    models: list[dict[str, Any]]
    """Catalogue entries (``name``, ``path``, ``builtin``, ``parameters``, ``ready``) plus
    ``workers``: the names of the running workers that have it."""
    workers: int
    """Running workers considered (those serving ``queue`` when one was asked for)."""
    detail: str = ""
    """Why the list is empty, in words for the page: no worker is running, or none has models."""
    names: set[str] = field(default_factory=set)


# --- what a worker reports ------------------------------------------------------------------


@cache
def devices() -> dict[str, Any]:
    """CUDA devices (count, names, memory of each), CPU cores and the memory this worker
    offers runs (``WORKER_MEMORY_BYTES``, else what the machine or its cgroup allows).

    Asked of ``nvidia-smi``, not torch: initialising CUDA in the worker's main process would
    break CUDA in every pool process it forks afterwards.
    """
    gpus = _gpus()
    return {
        "cuda": len(gpus),
        "names": [name for name, _ in gpus],
        "gpu_memory": [size for _, size in gpus],
        "cpu": os.cpu_count() or 1,
        "memory": settings.WORKER_MEMORY_BYTES or memory.machine_memory(),
    }


def _gpus() -> list[tuple[str, int]]:
    """(name, memory in bytes) of each visible GPU."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        out = subprocess.run(
            [smi, "--query-gpu=index,name,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=NVIDIA_SMI_TIMEOUT_S,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    visible = _visible_devices()
    found = []
    for line in out.splitlines():
        index, _, rest = line.partition(",")
        name, _, mib = rest.rpartition(",")  # a name may hold a comma, the size does not
        if name and (visible is None or index.strip() in visible):
            size = int(mib.strip()) * 2**20 if mib.strip().isdigit() else 0
            found.append((name.strip(), size))
    return found


def _visible_devices() -> set[str] | None:
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    return None if value is None else {part.strip() for part in value.split(",") if part.strip()}


def loadable() -> list[dict[str, Any]]:
    return [entry.to_dict() for entry in catalogue.catalogue(settings.MODELS_DIR)]


def beat(name: str, queues: list[str], started_at: datetime | None = None) -> Worker:
    """Upsert the worker's row: it is alive now, with what it can load today."""
    now = timezone.now()
    report = {
        "started_at": started_at or now,
        "queues": sorted(queues),
        "loadable": loadable(),
        "devices": devices(),
        "pid": os.getpid(),
        "heartbeat_at": now,
        "stopped_at": None,
    }
    worker, _ = Worker.objects.update_or_create(name=name, defaults=report)
    return worker


def mark_stopped(name: str) -> None:
    Worker.objects.filter(name=name, stopped_at=None).update(stopped_at=timezone.now())


# --- who is alive and what they offer ------------------------------------------------------


def stale_before(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=settings.RUN_STALE_SECONDS)


RUNNING, STOPPED, GONE = "running", "stopped", "gone"
STATUSES = (RUNNING, STOPPED, GONE)


def status(worker: Worker, stale: datetime | None = None) -> str:
    """Running; stopped (it said so as it shut down); gone (its heartbeat stopped without a
    word: killed, or dead after a broker outage), against the cutoff ``stale``."""
    if worker.stopped_at is not None:
        return STOPPED
    return RUNNING if worker.heartbeat_at >= (stale or stale_before()) else GONE


def running_workers(queue: str | None = None) -> list[Worker]:
    """Workers with a fresh heartbeat that have not said they stopped."""
    workers = Worker.objects.filter(stopped_at=None, heartbeat_at__gte=stale_before())
    return [w for w in workers if queue is None or queue in w.queues]


def available_models(queue: str | None = None) -> Availability:
    """The union of the running workers' catalogues (of those serving ``queue``, if given)."""
    workers = running_workers(queue)
    merged: dict[str, dict[str, Any]] = {}
    for worker in workers:
        for entry in worker.loadable:
            model = merged.setdefault(entry["name"], {**entry, "workers": []})
            model["workers"].append(worker.name)
            model["ready"] = model.get("ready", False) or entry.get("ready", False)
    models = sorted(merged.values(), key=lambda m: (not m.get("builtin"), m["name"]))
    return Availability(models, len(workers), _detail(workers, models, queue), set(merged))


def _detail(workers: list[Worker], models: list[dict[str, Any]], queue: str | None) -> str:
    where = f" on the {queue} queue" if queue else ""
    if not workers:
        return (
            f"No worker is running{where}, so no model can be loaded. Start one with "
            "`make run` (or `celery -A crucible worker -Q gpu,cpu,default`)."
        )
    if not models:
        return f"The running workers{where} have no models; add some to their models folder."
    return ""


def model_problem(name: str, queue: str | None = None) -> str | None:
    """Why no running worker can load model ``name``, or None when one can."""
    available = available_models(queue)
    if name in available.names:
        return None
    if not available.workers:
        return available.detail
    known = ", ".join(sorted(available.names)) or "none"
    return f"no running worker can load {name!r}; available: {known}"


# --- the reaper ----------------------------------------------------------------------------


def stale_runs(now: datetime | None = None) -> QuerySet[Run]:
    """Running platform runs whose heartbeat is older than the threshold (or that never sent
    one). An outside run has no worker to lose: its trainer may be silent as long as it likes."""
    cutoff = stale_before(now)
    return Run.objects.filter(state=RunState.RUNNING, source=RunSource.PLATFORM).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at=None, started_at__lt=cutoff)
    )


def reap(now: datetime | None = None) -> None:
    """What every worker's heartbeat does after beating: requeue the stale runs, resend the
    forgotten queued ones."""
    reap_stale_runs(now)
    resend_queued_runs(now)


def forgotten_runs(now: datetime | None = None) -> QuerySet[Run]:
    """Queued runs last sent longer than ``RUN_QUEUED_RESEND_SECONDS`` ago."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.RUN_QUEUED_RESEND_SECONDS)
    return Run.objects.filter(
        state=RunState.QUEUED, source=RunSource.PLATFORM, queued_at__lt=cutoff
    )


def resend_queued_runs(now: datetime | None = None) -> list[int]:
    """Send ``run_training`` again for every forgotten queued run; the ids sent.

    Each is taken by a conditional update that repeats the test and moves ``queued_at`` on, so
    of two reapers only one sends it, once per period."""
    sent = []
    for run_id in forgotten_runs(now).values_list("id", flat=True):
        if forgotten_runs(now).filter(pk=run_id).update(queued_at=timezone.now()):
            logger.warning("run.resent", extra={"run_id": run_id})
            jobs.send_on_commit(RUN_TRAINING, run_id)
            sent.append(run_id)
    return sent


def reap_stale_runs(now: datetime | None = None) -> list[int]:
    """Queue again every stale run (cancel one whose cancel was asked, pause one whose pause
    was); the ids requeued.

    Each run is taken with a conditional update that repeats the staleness test, so of two
    reapers (two workers) only one requeues it, and a run whose heartbeat came back is left.
    """
    requeued = []
    for run in stale_runs(now).only("id", "worker", "step", "cancel_requested", "pause_requested"):
        if _requeue(run, now):
            requeued.append(run.id)
    return requeued


def _requeue(run: Run, now: datetime | None) -> bool:
    still_stale = stale_runs(now).filter(pk=run.pk)
    if run.cancel_requested:
        if still_stale.update(state=RunState.CANCELLED, finished_at=timezone.now(), worker=""):
            _published(run.pk)
        logger.info("run.cancelled_after_worker_loss", extra={"run_id": run.pk})
        return False
    if run.pause_requested:  # it resumes, when asked, from its last checkpoint
        if still_stale.update(
            state=RunState.PAUSED, pause_requested=False, worker="", heartbeat_at=None
        ):
            _published(run.pk)
        logger.info("run.paused_after_worker_loss", extra={"run_id": run.pk})
        return False
    queued = still_stale.update(
        state=RunState.QUEUED, worker="", heartbeat_at=None, queued_at=timezone.now()
    )
    if not queued:
        return False
    logger.warning("run.requeued", extra={"run_id": run.pk, "lost_worker": run.worker})
    run_events.worker_lost(run, run.worker)
    jobs.send_on_commit(RUN_TRAINING, run.pk)
    _published(run.pk)
    return True


def _published(run_id: int) -> None:
    live.run_changed(Run.objects.get(pk=run_id))


# --- the threads ---------------------------------------------------------------------------


class Heartbeat(threading.Thread):
    """Beats for worker ``name`` and reaps stale runs until ``stop()``; never raises."""

    def __init__(self, name: str, queues: list[str], interval_s: float | None = None) -> None:
        super().__init__(name=f"heartbeat:{name}", daemon=True)
        self.worker_name, self.queues = name, queues
        self.started_at = timezone.now()
        self.interval_s = interval_s or settings.WORKER_HEARTBEAT_SECONDS
        self._stopping = threading.Event()
        self._failing = False

    def run(self) -> None:
        try:
            while True:
                self.tick()
                if self._stopping.wait(self.interval_s):
                    break
        finally:
            connection.close()  # this thread's own connection

    def tick(self) -> None:
        close_old_connections()  # a connection the database dropped is replaced, not reused
        try:
            beat(self.worker_name, self.queues, self.started_at)
            reap()
        except DatabaseError as exc:
            # A database that is briefly away (or not migrated yet) must not stop the worker.
            if not self._failing:
                logger.warning(
                    "worker.heartbeat_failed", extra={"worker": self.worker_name, "error": str(exc)}
                )
            self._failing = True
        else:
            self._failing = False

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stopping.set()
        self.join(timeout_s)


@contextmanager
def keep_alive(run_id: int, interval_s: float | None = None) -> Iterator[None]:
    """Keep the run's heartbeat fresh while the block runs (the training job, in the process
    that trains it): a step may take longer than the stale threshold, a dead process may not."""
    stopping = threading.Event()
    interval = interval_s or settings.WORKER_HEARTBEAT_SECONDS

    def refresh() -> None:
        try:
            while not stopping.wait(interval):
                close_old_connections()
                try:
                    Run.objects.filter(pk=run_id, state=RunState.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError:
                    logger.warning("run.heartbeat_failed", extra={"run_id": run_id})
        finally:
            connection.close()

    thread = threading.Thread(target=refresh, name=f"run-heartbeat:{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stopping.set()
        thread.join(interval + 5)


_heartbeat: Heartbeat | None = None
"""This process's heartbeat: one per Celery worker process."""


def start_heartbeat(name: str, queues: list[str]) -> Heartbeat:
    """Start beating for worker ``name`` (the Celery node name, ``celery@host``)."""
    global _heartbeat
    if _heartbeat is not None and _heartbeat.is_alive():
        return _heartbeat
    _heartbeat = Heartbeat(name, queues)
    _heartbeat.start()
    logger.info("worker.heartbeat_started", extra={"worker": name, "queues": queues})
    return _heartbeat


def stop_heartbeat(name: str) -> None:
    """Stop beating and record that the worker stopped (a clean shutdown, not a death)."""
    global _heartbeat
    if _heartbeat is not None:
        _heartbeat.stop()
        _heartbeat = None
    try:
        mark_stopped(name)
    except DatabaseError:
        logger.warning("worker.stop_not_recorded", extra={"worker": name})
    finally:
        close_old_connections()
