"""The replica job: a worker process on the ``serve`` queue that holds one model version and
answers a deployment's requests over HTTP (``training.serving``) until it is told to stop.

It claims its row with a conditional update (a re-delivered job finds it claimed), loads the
version's checkpoint (or catalogue model), starts the batching server on ``SERVING_HOST`` and
records where it answers. The server answers only requests signed with the replica's own
secret (made with its row, read from it here), so only the web process can have it generate
or write its log. Each batch it answers is verified and written to the request log off the
generation thread, from what the web process routed and signed: the id the caller was
given, the canary, step and side, and what to verify against (the expected data, the
verifier version, and whether they came from the pool or from the caller; or, for real
traffic in a shadow canary, the verifier whose reference-free layers judge it). Rows
that belong to a canary step wake the canary's analysis (at most every
``OBSERVE_INTERVAL_S``). The replica beats every ``HEARTBEAT_S``; a missing beat tells the
platform its worker is gone. The time its worker holds it, from its claim to its end, counts
in the deployment's team's usage as ``serving`` on the job's queue, charged every
``USAGE_CHARGE_S`` while it serves and at its end.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from django.conf import settings
from django.db import close_old_connections, connection
from django.db.models import F, Q
from django.utils import timezone

from experiments import catalogue
from experiments.adapters import verifier_reward_fn
from experiments.model_format import ModelFormat
from experiments.services import usage
from experiments.services.failures import failure_reason
from tasks_app.services import pinning
from tasks_app.verifiers.base import Stage
from tasks_app.verifiers.layers import layer_class
from training.config import ModelConfig, SamplingConfig
from training.decode import make_generator
from training.generation import Generator
from training.interfaces import Item, RewardFn
from training.models import load_model
from training.prompting import PromptFormat, answers_only, check_format
from training.serving import BatchingServer, Limits, Pending, ServingHTTP

from ..jobs import SERVE_REPLICA
from ..models import (
    Deployment,
    JudgedAgainst,
    Replica,
    ReplicaState,
    RequestStatus,
    ServedRequest,
    storable,
)
from . import canaries, deployments

logger = logging.getLogger(__name__)
HEARTBEAT_S = 2.0
OBSERVE_INTERVAL_S = 0.5
MAX_ATTEMPTS = 3
USAGE_CHARGE_S = 60.0
"""How often a serving replica's worker time is added to its team's usage."""


def run_job(replica_id: int, worker: str) -> None:
    replica = claim(replica_id, worker)
    if replica is None:
        logger.info("replica.not_claimed", extra={"replica_id": replica_id})
        return
    meter = usage.JobMeter(replica.deployment.team_id, SERVE_REPLICA, usage.SERVING)
    try:
        serve(replica, meter)
    except Exception as exc:  # noqa: BLE001 - every failure ends on the replica, with its reason
        logger.exception("replica.failed", extra={"replica_id": replica_id})
        _set(replica, ReplicaState.FAILED, failure_reason(exc)[:500])
    finally:
        meter.charge()


def claim(replica_id: int, worker: str) -> Replica | None:
    """Take a replica that is starting, or one whose worker stopped beating."""
    now = timezone.now()
    stale = Q(
        state=ReplicaState.READY,
        heartbeat_at__lt=now - timezone.timedelta(seconds=deployments.STALE_SECONDS),
    )
    taken = (
        Replica.objects.filter(Q(state=ReplicaState.STARTING) | stale, pk=replica_id)
        .filter(attempts__lt=MAX_ATTEMPTS)
        .update(
            state=ReplicaState.STARTING,
            worker=worker,
            attempts=F("attempts") + 1,
            heartbeat_at=now,
            started_at=now,
            message="loading the model",
        )  # fmt: skip
    )
    if not taken:
        return None
    return Replica.objects.select_related("deployment", "version__checkpoint").get(pk=replica_id)


def model_dir(replica: Replica) -> Path:
    version = replica.version
    if version.base_model:
        return catalogue.resolve(version.base_model, Path(settings.MODELS_DIR))
    if version.checkpoint is None:
        raise FileNotFoundError(f"the checkpoint of {version} was deleted")
    path = Path(version.checkpoint.path) / "model"
    if not path.is_dir():
        raise FileNotFoundError(f"the checkpoint of {version} is no longer on disk ({path})")
    return path


def serve(replica: Replica, meter: usage.JobMeter | None = None) -> None:
    deployment = replica.deployment
    torch.set_num_threads(settings.SERVING_THREADS)
    model, tokenizer = load_model(ModelConfig(path=str(model_dir(replica))))
    fmt = ModelFormat.from_dict(replica.version.format).prompt_format()  # as it was trained
    generator = make_generator(SamplingConfig(), model, tokenizer, fmt)
    recorder = Recorder(replica)
    server = BatchingServer(
        generator, max_batch=deployment.max_batch, max_queue=deployment.max_queue,
        on_done=recorder, on_done_exit=lambda: connection.close(),
        generator_for=Encodings(model, tokenizer, fmt),
        stream_interval_s=settings.SERVING_STREAM_INTERVAL_S,
    )  # fmt: skip
    if not replica.secret:
        raise ValueError("the replica has no secret to check the platform's requests with")
    http = ServingHTTP(
        server, host=settings.SERVING_HOST, limits=Limits(max_new_tokens=512),
        describe=lambda: {"replica": replica.pk, "version": str(replica.version)},
        secret=replica.secret,
    )  # fmt: skip
    server.start()
    http.start()
    address = http.address
    if settings.SERVING_ADVERTISE_HOST:
        address = address.replace(settings.SERVING_HOST, settings.SERVING_ADVERTISE_HOST, 1)
    try:
        Replica.objects.filter(pk=replica.pk, state=ReplicaState.STARTING).update(
            state=ReplicaState.READY, address=address, heartbeat_at=timezone.now(),
            message=f"serving {replica.version}",  # the address is for the platform only
        )  # fmt: skip
        deployments.publish(deployment, "replica_ready", replica=replica.pk)
        logger.info("replica.ready", extra={"replica_id": replica.pk, "address": address})
        _beat_until_stopped(replica, server, meter)
    finally:
        http.stop()
        server.stop()
        close_old_connections()
        _set(
            replica,
            ReplicaState.STOPPED,
            "stopped",
            only_from=(ReplicaState.READY, ReplicaState.STOPPING),
        )
        deployments.publish(deployment, "replica_stopped", replica=replica.pk)


class Encodings:
    """Generators for requests encoded otherwise than the model was trained (the raw prompt
    of a completions request, a chat request's own system prompt), the last few kept."""

    KEPT = 8

    def __init__(self, model: Any, tokenizer: Any, trained: PromptFormat) -> None:
        self.model, self.tokenizer, self.trained = model, tokenizer, trained
        self.kept: OrderedDict[tuple[str, str | None], Generator] = OrderedDict()

    def __call__(self, encoding: tuple[str, str | None]) -> Generator:
        if encoding in self.kept:
            self.kept.move_to_end(encoding)
            return self.kept[encoding]
        kind, system = encoding
        fmt = PromptFormat(kind, system, self.trained.reasoning_tags)
        check_format(self.tokenizer, fmt)
        made = make_generator(SamplingConfig(), self.model, self.tokenizer, fmt)
        self.kept[encoding] = made
        if len(self.kept) > self.KEPT:
            self.kept.popitem(last=False)
        return made


def _beat_until_stopped(
    replica: Replica, server: BatchingServer, meter: usage.JobMeter | None = None
) -> None:
    """Beat every HEARTBEAT_S, taking the deployment's queue and batch sizes as they change,
    and charge ``meter`` every USAGE_CHARGE_S."""
    charged = time.monotonic()
    while True:
        time.sleep(HEARTBEAT_S)
        if meter is not None and time.monotonic() - charged >= USAGE_CHARGE_S:
            meter.charge()
            charged = time.monotonic()
        beat = Replica.objects.filter(pk=replica.pk, state=ReplicaState.READY).update(
            heartbeat_at=timezone.now()
        )
        if not beat:  # told to stop, failed by the platform, or deleted with its deployment
            return
        limits = (
            Deployment.objects.filter(pk=replica.deployment_id)
            .values_list("max_batch", "max_queue")
            .first()
        )
        if limits is not None and limits != (server.max_batch, server.max_queue):
            server.resize(max_batch=limits[0], max_queue=limits[1])
            logger.info(
                "replica.resized",
                extra={"replica_id": replica.pk, "max_batch": limits[0], "max_queue": limits[1]},
            )


def _set(
    replica: Replica, state: str, message: str, only_from: Sequence[str] | None = None
) -> None:
    rows = Replica.objects.filter(pk=replica.pk)
    if only_from is not None:
        rows = rows.filter(state__in=only_from)
    rows.update(state=state, message=message[:500], stopped_at=timezone.now())


class Recorder:
    """What the replica does with each answered batch, off the generation thread: verify
    the answers that carry something to verify against, log every one, wake canaries."""

    def __init__(self, replica: Replica, observe: Callable[[int], None] | None = None) -> None:
        self.replica = replica
        self.verifiers: dict[tuple[int, bool], RewardFn] = {}
        self.observe = observe or canaries.observe
        self.last_observed: dict[int, float] = {}
        self.scheduled: set[int] = set()

    def __call__(self, answered: list[Pending]) -> None:
        try:
            rows = [self.row(p) for p in answered if p.meta.get("request_id")]
            ServedRequest.objects.bulk_create(rows, ignore_conflicts=True)
            for canary_id in {r.canary_id for r in rows if r.canary_id}:
                self.wake(canary_id)
        finally:
            if not connection.in_atomic_block:
                close_old_connections()

    def row(self, pending: Pending) -> ServedRequest:
        meta = pending.meta
        received = float(meta.get("received_at") or pending.answered_at)
        latency = max(0.0, (pending.answered_at - received) * 1000)
        status = RequestStatus.OK
        if pending.error is not None:
            status = RequestStatus.ERROR
        elif meta.get("abandoned"):
            status = RequestStatus.TIMEOUT
        passed, reward, verdict = (
            self.verify(pending) if status == RequestStatus.OK else (None, None, {})
        )
        return ServedRequest(
            id=uuid.UUID(str(meta["request_id"])),
            deployment_id=self.replica.deployment_id, canary_id=meta.get("canary"),
            step=meta.get("step"), version_id=self.replica.version_id, side=str(meta.get("side") or self.replica.role),
            shadow=pending.shadow, key=storable(str(meta.get("key") or ""))[:200],
            prompt=storable(pending.prompt),
            completion=storable(pending.completion), status=status, error=(pending.error or "")[:500],
            latency_ms=latency, output_tokens=pending.output_tokens,
            family=str(meta.get("family") or ""), task=str(meta.get("task") or "")[:100],
            passed=passed, reward=reward, verdict=verdict,
            judged_against=_judged_against(meta, passed),
            format_warnings=list(meta.get("format_warnings") or []),
            created_at=datetime.fromtimestamp(received, tz=UTC),
        )  # fmt: skip

    def verify(self, pending: Pending) -> tuple[bool | None, float | None, dict[str, Any]]:
        meta = pending.meta
        expected, version = meta.get("expected"), meta.get("verifier_version")
        free = False
        if expected is None and version is None and meta.get("free_verifier") is not None:
            expected, version, free = {}, meta["free_verifier"], True  # no reference: none read
        if expected is None or version is None:
            return None, None, {}
        key = (version, free)
        reward_fn = self.verifiers.get(key)
        if reward_fn is None:
            specs = pinning.verifier_specs(self.replica.deployment.team, [version])
            if version not in specs:
                return None, None, {"error": f"verifier version {version} is gone"}
            spec = reference_free(specs[version]) if free else specs[version]
            if spec is None:
                return None, None, {}  # nothing of this verifier judges without a reference
            fmt = ModelFormat.from_dict(self.replica.version.format).prompt_format()
            reward_fn = answers_only(verifier_reward_fn(spec), fmt)  # its answer part
            self.verifiers[key] = reward_fn
        item = Item(prompt=pending.prompt, payload=expected, family=str(meta.get("family") or ""))
        try:
            result = reward_fn([item], [pending.completion])[0]
        except Exception as exc:  # noqa: BLE001 - a verifier fault is recorded, not served
            return None, None, {"error": f"the verifier failed: {type(exc).__name__}: {exc}"[:300]}
        details = result.details or {}
        verdict = {
            "error_type": details.get("error_type"),
            "extracted": details.get("extracted"),
            "layers": details.get("layers", []),
            "verifier_version": version,
            **({"reference_free": True} if free else {}),
        }
        return bool(result.passed), float(result.reward), verdict

    def wake(self, canary_id: int) -> None:
        now = time.monotonic()
        if now - self.last_observed.get(canary_id, 0.0) < OBSERVE_INTERVAL_S:
            if canary_id not in self.scheduled:
                self.scheduled.add(canary_id)
                threading.Timer(OBSERVE_INTERVAL_S, self._late_wake, args=(canary_id,)).start()
            return
        self.last_observed[canary_id] = now
        self.observe(canary_id)

    def _late_wake(self, canary_id: int) -> None:
        """The last rows of a burst are still looked at, once the interval has passed."""
        self.scheduled.discard(canary_id)
        try:
            self.last_observed[canary_id] = time.monotonic()
            self.observe(canary_id)
        except Exception:  # noqa: BLE001 - the next batch wakes it again
            logger.exception("replica.observe_failed", extra={"canary_id": canary_id})
        finally:
            connection.close()  # this thread ends here, and its connection with it


REFERENCE_FREE_STAGES = frozenset({Stage.SYNTAX, Stage.CONSTRAINT, Stage.JUDGE})
"""The verifier stages that judge an answer without a reference (the others compare it with
the expected data, or run its tests)."""


def reference_free(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """``spec`` with only its layers that need no reference; None when none is left."""
    layers = [
        layer for layer in spec.get("layers") or []
        if layer_class(str(layer.get("kind"))).stage in REFERENCE_FREE_STAGES
    ]  # fmt: skip
    return {**spec, "layers": layers} if layers else None


def _judged_against(meta: Mapping[str, Any], passed: bool | None) -> str:
    """What the web process said the verdict was judged against; a verdict it did not say
    came from the pool is one no canary counts."""
    if passed is not None and meta.get("expected") is None and meta.get("free_verifier"):
        return JudgedAgainst.REFERENCE_FREE
    said = meta.get("judged_against")
    if passed is None or said not in JudgedAgainst.values:
        return JudgedAgainst.NOTHING if passed is None else JudgedAgainst.CALLER
    return str(said)
