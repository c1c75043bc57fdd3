"""What serving and canary tests set up: checkpoints of the tiny model warm-started for a
chosen number of SFT steps (greedy pass rate on 2-3 digit sorts: 1 step ~0, 20 steps ~0.06,
60 steps ~0.8), registered as versions of one model with production on a promoted one, and
replicas run in this process's threads on their own database connections."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

from experiments.models import Checkpoint, EvaluationReport, ModelVersion, RegisteredModel, Run
from experiments.services import experiments, promotion, registry
from serving.models import Replica, ReplicaState
from serving.services import replicas
from tasks_app.models import PoolVersion, VerifierVersion
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from tests.experiments.test_promotion import report_on

MODEL_CACHE: dict[int, Path] = {}


def warm_model(root: Path, sft_steps: int) -> Path:
    """A saved tiny model after ``sft_steps`` of SFT (built once per session and steps)."""
    import torch

    from training.demo import cached_base

    if sft_steps not in MODEL_CACHE:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            cached_base(root / f"sft-{sft_steps}", sft_steps)
        finally:
            torch.set_num_threads(threads)
        MODEL_CACHE[sft_steps] = root / f"sft-{sft_steps}"
    return MODEL_CACHE[sft_steps]


class Served:
    """A team's digit-sort pool and verifier, and a model ``sorter`` with one version per
    checkpoint made by ``version``."""

    def __init__(self, user, root: Path) -> None:  # type: ignore[no-untyped-def]
        self.user = user
        self.team = user.memberships.get().team
        self.root = root
        self.pool: PoolVersion = digit_version(user, self.team, counts={2: 60, 3: 60})
        self.verifier: VerifierVersion = digit_verifier(user, self.team)
        advertise()
        config = config_for(self.pool, self.verifier)
        self.experiment = experiments.create_experiment(
            user, self.team, name="sort-grpo", config=config
        )
        self.run = Run.objects.create(
            experiment=self.experiment, team=self.team, number=1, created_by=user
        )
        self.model = registry.create_model(user, self.team, name="sorter")

    def version(self, sft_steps: int, step: int, promoted: bool = True) -> ModelVersion:
        """A checkpoint at ``step`` holding the ``sft_steps`` model, registered (and, when
        ``promoted``, promoted on an approved report)."""
        import shutil

        folder = self.root / f"run-1/step-{step:06d}"
        shutil.copytree(warm_model(self.root / "models", sft_steps), folder / "model")
        checkpoint = Checkpoint.objects.create(run=self.run, step=step, path=str(folder))
        if promoted:
            report = EvaluationReport.objects.get(pk=report_on(self.user, self.team, checkpoint).pk)
            promotion.promote(self.user, checkpoint, report)
        return registry.register(self.user, self.model, checkpoint=checkpoint.pk)

    def production(self, version: ModelVersion) -> ModelVersion:
        registry.set_alias(self.user, version, registry.PRODUCTION)
        return version

    def held_out(self, n: int) -> list[tuple[str, str]]:
        """(prompt, content hash) of held-out tasks."""
        rows = self.pool.tasks.filter(split="held_out").order_by("position")[:n]
        return [(t.prompt, t.content_hash) for t in rows]


@contextmanager
def replica_thread(replica: Replica, timeout: float = 60) -> Iterator[threading.Thread]:
    """Run a replica's job in a thread until it is stopped (then wait for it to end)."""

    def run() -> None:
        try:
            replicas.run_job(replica.pk, "test@replica")
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    wait_ready(replica, timeout)
    try:
        yield thread
    finally:
        Replica.objects.filter(pk=replica.pk, state=ReplicaState.READY).update(
            state=ReplicaState.STOPPING
        )
        thread.join(timeout=15)


def wait_ready(replica: Replica, timeout: float = 60) -> Replica:
    deadline = time.monotonic() + timeout
    while True:
        replica.refresh_from_db()
        if replica.state == ReplicaState.READY:
            return replica
        assert replica.state != ReplicaState.FAILED, replica.message
        assert time.monotonic() < deadline, (
            f"replica {replica.pk} never got ready: {replica.message}"
        )
        time.sleep(0.1)


def model_of(served: Served) -> RegisteredModel:
    return RegisteredModel.objects.get(pk=served.model.pk)
