"""A generate request, from the web process to a replica and back.

``generate`` checks the request (a 400 names the field), works out what its answer will be
verified against, compares the format it states with the model's training format
(differences come back as warnings and are logged), routes it, and forwards it to a
replica over HTTP, signed with the replica's secret:

- no canary, or a paused one: production's replica answers;
- split: the candidate answers when the request's key (or, without one, its id) hashes
  into the step's share, so a caller's requests stay on one side;
- shadow: production answers; a copy is queued on the candidate, whose answer is logged
  and judged but never returned.

What an answer is judged against decides whether a canary weighs it. A task named by its
content hash is looked up in the team's pool by the platform, its own prompt is the one
sent (a different prompt is refused), and it is judged by the verifier version the served
model was trained with, the same for both sides: those verdicts are the ones a canary
counts. An expected answer or a verifier version the caller names is judged too, for the
caller to read in the log, but a canary never counts it: whoever can send requests must not
be able to decide a release.

The replica logs and verifies each answer it gives, from what this module routed and
signed; what never reached a replica (worker gone, timed out, refused) is logged here. A
full queue is a 429 with ``Retry-After`` (back-pressure: slow down); a deployment with no
replica serving is a 503 saying why; a lost candidate pauses its canary and production
answers instead.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from crucible.api.field_errors import field_errors
from experiments.model_format import ModelFormat, differences
from training.serving import SIGNATURE_HEADER, sign

from .. import keepalive
from ..models import (
    Canary,
    CanaryMode,
    CanaryState,
    Deployment,
    JudgedAgainst,
    Replica,
    ReplicaRole,
    ReplicaState,
    RequestStatus,
    ServedRequest,
    storable,
)
from . import canaries, deployments, routing

logger = logging.getLogger(__name__)
SHADOW_TIMEOUT_S = 2.0
"""How long a shadow copy may take to be queued on the candidate."""
FORMAT_KEYS = ("prompt_template", "chat_template", "add_special_tokens", "extract")


@dataclass
class Outcome:
    """What the caller gets: an HTTP status, a body and headers."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    prompt: str
    key: str
    family: str
    task: str
    expected: Any
    verifier_version: int | None
    max_new_tokens: int
    temperature: float
    served_format: dict[str, Any]


@dataclass(frozen=True)
class Judging:
    """What an answer is judged against, and whether a canary may count the verdict."""

    expected: Any = None
    verifier_version: int | None = None
    against: str = JudgedAgainst.NOTHING
    prompt: str = ""
    """The pool task's own prompt, when the request named a task."""


# --- checking --------------------------------------------------------------------------------


def parse(deployment: Deployment, body: Any) -> Request:
    if not isinstance(body, dict):
        raise field_errors([("non_field_errors", "expected a JSON object")])
    errors: list[tuple[str, str]] = []
    prompt = body.get("prompt")
    if prompt is None and body.get("task"):
        prompt = ""  # the task's own prompt is sent
    elif not isinstance(prompt, str) or not prompt.strip():
        errors.append(("prompt", "a non-empty string is required"))
    elif len(prompt) > settings.SERVING_MAX_PROMPT_CHARS:
        errors.append(("prompt", f"longer than {settings.SERVING_MAX_PROMPT_CHARS} characters"))
    strings = {}
    for name, limit in (("key", 200), ("family", 100), ("task", 100)):
        value = body.get(name, "")
        if value is None:
            value = ""
        if not isinstance(value, str) or len(value) > limit:
            errors.append((name, f"expected a string of at most {limit} characters"))
        strings[name] = value if isinstance(value, str) else ""
    tokens = body.get("max_new_tokens", deployment.max_new_tokens)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or not 1 <= tokens <= 512:
        errors.append(("max_new_tokens", "expected an integer from 1 to 512"))
    temperature = body.get("temperature", deployment.temperature)
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not 0 <= temperature <= 5
    ):
        errors.append(("temperature", "expected a number from 0 to 5"))
    verifier = body.get("verifier_version")
    if verifier is not None and (isinstance(verifier, bool) or not isinstance(verifier, int)):
        errors.append(("verifier_version", "expected a verifier version id"))
    served = body.get("format") or {}
    if not isinstance(served, dict) or set(served) - set(FORMAT_KEYS):
        errors.append(("format", f"expected an object with keys among {', '.join(FORMAT_KEYS)}"))
    expected = body.get("expected")
    if expected is not None and not strings["family"]:
        errors.append(
            ("family", "an expected answer is judged by a family's verifier: name the family")
        )
    if strings["task"] and not strings["family"]:
        errors.append(("family", "a task is looked up in a family: name the family"))
    if errors:
        raise field_errors(errors)
    return Request(
        prompt=str(prompt), key=strings["key"], family=strings["family"], task=strings["task"],
        expected=expected, verifier_version=verifier, max_new_tokens=int(tokens),
        temperature=float(temperature), served_format=dict(served) if isinstance(served, dict) else {},
    )  # fmt: skip


def target(deployment: Deployment, request: Request) -> Judging:
    """What the answer is judged against; nothing when the request names no family. A 400
    names the field that cannot be resolved."""
    if not request.family:
        return Judging()
    trained = ModelFormat.from_dict(deployment.version.format)
    family = next((f for f in trained.families if f.family == request.family), None)
    trained_verifier = family.verifier_version if family else None
    verifier = request.verifier_version or trained_verifier
    if verifier is None:
        why = (
            f"family {request.family!r} is not one {deployment.version} was trained on; "
            "name the verifier_version to judge with"
        )
        raise field_errors([("family", why)])
    if not routing.verifier_exists(deployment.team, verifier):
        raise field_errors([("verifier_version", f"verifier version {verifier} does not exist")])
    if request.expected is not None:
        return Judging(request.expected, verifier, JudgedAgainst.CALLER)
    if not request.task:
        return Judging()
    task = routing.pool_task(
        deployment.team, request.family, request.task, family.pool_version if family else None
    )
    if task is None:
        raise field_errors([("task", f"no task {request.task!r} in family {request.family!r}")])
    if request.prompt and request.prompt != task.prompt:
        # Judging another prompt's answer against this task's reference would fail it at will.
        why = f"differs from task {request.task!r}'s prompt; leave it out to send the task's own"
        raise field_errors([("prompt", why)])
    against = JudgedAgainst.POOL if verifier == trained_verifier else JudgedAgainst.CALLER
    return Judging(task.expected, verifier, against, task.prompt)


def format_warnings(deployment: Deployment, request: Request) -> list[str]:
    served = {**deployment.served_format, **request.served_format}
    if request.family:
        served["family"] = request.family
    elif "family" not in served and not served:
        return []
    return differences(ModelFormat.from_dict(deployment.version.format), served)


# --- routing ---------------------------------------------------------------------------------


def bucket(text: str) -> int:
    """0-99, stable for a key: the same caller lands on the same side at a given share."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") % 100


def generate(deployment: Deployment, body: Any, *, received_at: float | None = None) -> Outcome:
    """Answer ``body`` with the deployment's model; a refusal comes in the API's error shape."""
    outcome = _generate(deployment, body, received_at or time.time())
    if outcome.status != 200 and "errors" not in outcome.body:
        return Outcome(outcome.status, error_body(outcome), outcome.headers)
    return outcome


def _generate(deployment: Deployment, body: Any, received_at: float) -> Outcome:
    request = parse(deployment, body)
    if deployment.stopped:
        why = f"deployment {deployment.slug!r} is stopped; start it to serve again"
        return Outcome(409, {"detail": why})
    judging = target(deployment, request)
    prompt = judging.prompt or request.prompt
    warnings = format_warnings(deployment, request)
    routed = choose(deployment, request.key)
    request_id, side, replica = routed.request_id, routed.side, routed.replica
    production, canary = routed.production, routed.canary
    meta = {
        "request_id": request_id, "received_at": received_at, "key": request.key,
        "family": request.family, "task": request.task, "expected": judging.expected,
        "verifier_version": judging.verifier_version, "judged_against": judging.against,
        "format_warnings": warnings,
        "canary": canary.pk if canary else None, "step": canary.step if canary else None,
        "side": side,
        "free_verifier": None if judging.expected is not None else
        reference_free_verifier(deployment, canary),
    }  # fmt: skip
    payload = {
        "prompt": prompt, "max_new_tokens": request.max_new_tokens,
        "temperature": request.temperature, "timeout_s": deployment.timeout_s, "meta": meta,
    }  # fmt: skip
    if side == ReplicaRole.CANDIDATE:
        assert canary is not None and replica is not None
        outcome = _forward(deployment, replica, payload)
        if outcome.status in (502, 503) and outcome.body.get("lost"):
            canaries.candidate_lost(canary, outcome.body["detail"])
            side, replica = ReplicaRole.PRODUCTION, production
            meta["side"] = side
        else:
            if outcome.status != 200:
                log_failure(deployment, replica, prompt, request, meta, outcome)
            return _answered(outcome, request_id, side, replica, warnings, judging.expected)
    if replica is None:
        return _unavailable(deployment, prompt, request, meta)
    outcome = _forward(deployment, replica, payload)
    if outcome.status in (502, 503) and outcome.body.get("lost"):
        deployments.mark_lost(replica, outcome.body["detail"])
    if canary is not None and canary.mode == CanaryMode.SHADOW and outcome.status == 200:
        _shadow(canary, payload, meta)
    if outcome.status != 200:
        log_failure(deployment, replica, prompt, request, meta, outcome)
    return _answered(outcome, request_id, side, replica, warnings, judging.expected)


QUEUE_FULL = (429, 503)
"""What a replica answers when its queue has no room (429; 503 from a replica started
before a full queue was answered 429)."""
ERROR_CODES = {409: "conflict", 429: "throttled", 503: "unavailable", 504: "timeout"}


def reference_free_verifier(deployment: Deployment, canary: Canary | None) -> int | None:
    """The verifier whose reference-free layers judge real traffic (a request with nothing
    to judge against) in a shadow canary, on both sides alike: the one the served model was
    trained with, when it was trained with one; None otherwise, or with no shadow canary.
    Its verdicts are shown beside the canary's decision, never counted in it."""
    if canary is None or canary.mode != CanaryMode.SHADOW:
        return None
    trained = ModelFormat.from_dict(deployment.version.format).families
    found = {f.verifier_version for f in trained if f.verifier_version is not None}
    return found.pop() if len(found) == 1 else None


@dataclass(frozen=True)
class Routed:
    """Where one request goes: its id in the log, its side and that side's replica (None:
    none is serving), production's replica and the running canary."""

    request_id: str
    side: str
    replica: Replica | None
    production: Replica | None
    canary: Canary | None


def choose(deployment: Deployment, key: str) -> Routed:
    """The side and replica that answer a request with sticky ``key`` (its id without one)."""
    request_id = str(uuid.uuid4())
    route = routing.route(deployment)
    production = route.production
    if production is not None and production.state != ReplicaState.READY:
        production = None  # still loading the model
    canary = _routable_canary(deployment, route.canary)
    side, replica = ReplicaRole.PRODUCTION, production
    if canary is not None and canary.mode == CanaryMode.SPLIT:
        if bucket(key or request_id) < canary.share:
            side, replica = ReplicaRole.CANDIDATE, canary.replica
    return Routed(request_id, side, replica, production, canary)


def _routable_canary(deployment: Deployment, canary: Canary | None) -> Canary | None:
    """A running canary whose candidate replica is serving; a lost one is paused here."""
    if canary is None or canary.state != CanaryState.RUNNING or canary.replica is None:
        return None
    if deployments.is_stale(canary.replica):
        canaries.candidate_lost(canary, "its worker stopped answering")
        return None
    if canary.replica.state != ReplicaState.READY:
        return None
    return canary


def _forward(deployment: Deployment, replica: Replica, payload: dict[str, Any]) -> Outcome:
    try:
        answer = keepalive.post_json(
            f"{replica.address}/generate", payload, timeout=deployment.timeout_s + 5,
            sign=signer(replica),
        )  # fmt: skip
    except TimeoutError:
        return Outcome(504, {"detail": f"no answer within {deployment.timeout_s:g} s"})
    except (OSError, http.client.HTTPException) as lost:
        why = f"the {replica.role} replica's worker is gone ({type(lost).__name__}: {lost})"
        return Outcome(503, {"detail": why, "lost": True}, {"Retry-After": "5"})
    retry = answer.retry_after
    return Outcome(answer.status, json_object(answer.body), {"Retry-After": retry} if retry else {})


def signer(replica: Replica) -> Callable[[str, bytes], dict[str, str]]:
    """Signs a request to ``replica`` with its secret: the secret never leaves this process."""
    return lambda path, body: {SIGNATURE_HEADER: sign(replica.secret, "POST", path, body)}


def json_object(raw: bytes) -> dict[str, Any]:
    """A replica's answer as a JSON object; its text as ``detail`` when it is not one."""
    try:
        found = json.loads(raw)
    except ValueError:
        return {"detail": raw.decode(errors="replace")[:300]}
    return found if isinstance(found, dict) else {"detail": str(found)[:300]}


def _shadow(canary: Canary, payload: dict[str, Any], meta: dict[str, Any]) -> None:
    """Queue a copy on the candidate; a full queue drops the copy, a gone worker pauses."""
    assert canary.replica is not None
    # Its latency counts from when the copy is sent, not from when production was asked.
    copy_meta = {**meta, "request_id": str(uuid.uuid4()), "shadow_of": meta["request_id"],
                 "received_at": time.time(), "side": ReplicaRole.CANDIDATE}  # fmt: skip
    copy = {**payload, "shadow": True, "meta": copy_meta}
    try:
        answer = keepalive.post_json(
            f"{canary.replica.address}/generate", copy, timeout=SHADOW_TIMEOUT_S,
            sign=signer(canary.replica),
        )  # fmt: skip
        if answer.status in QUEUE_FULL:  # the candidate's queue is full: the copy is dropped
            canaries.shadow_dropped(canary)
    except TimeoutError:
        pass  # the copy may still be answered; production has answered
    except (OSError, http.client.HTTPException) as lost:
        canaries.candidate_lost(canary, f"{type(lost).__name__}: {lost}")


def _answered(
    outcome: Outcome,
    request_id: str,
    side: str,
    replica: Replica | None,
    warnings: list[str],
    expected: Any,
) -> Outcome:
    if outcome.status != 200:
        return Outcome(outcome.status, error_body(outcome, request_id), outcome.headers)
    assert replica is not None
    answer = outcome.body
    return Outcome(200, {
        "id": request_id, "completion": answer.get("completion", ""), "side": side,
        "version": {"id": replica.version_id, "number": replica.version.number,
                    "label": str(replica.version)},
        "output_tokens": answer.get("output_tokens"), "truncated": answer.get("truncated"),
        "queue_ms": answer.get("queue_ms"), "generation_ms": answer.get("generation_ms"),
        "format_warnings": warnings,
        "verification": "pending" if expected is not None else "none",
    })  # fmt: skip


def error_body(outcome: Outcome, request_id: str | None = None) -> dict[str, Any]:
    """A refusal in the API's one error shape, with the request's id in the log."""
    code = ERROR_CODES.get(outcome.status, "error")
    detail = str(outcome.body.get("detail", "")) or "the replica could not answer"
    body: dict[str, Any] = {"errors": [{"field": None, "code": code, "message": detail}]}
    if request_id is not None:
        body["id"] = request_id
    return body


def _unavailable(
    deployment: Deployment, prompt: str, request: Request, meta: dict[str, Any]
) -> Outcome:
    outcome = Outcome(503, {"detail": unavailable_reason(deployment)}, {"Retry-After": "5"})
    log_failure(deployment, None, prompt, request, meta, outcome)
    return outcome


def unavailable_reason(deployment: Deployment) -> str:
    """Why no production replica answers: loading the model, or gone."""
    starting = deployment.replicas.filter(
        role=ReplicaRole.PRODUCTION, state=ReplicaState.STARTING
    ).exists()
    if starting:
        return f"deployment {deployment.slug!r} is starting: its replica is loading the model"
    return (
        f"deployment {deployment.slug!r} has no replica serving (its worker is gone); "
        "restart it"
    )


def log_failure(
    deployment: Deployment,
    replica: Replica | None,
    prompt: str,
    request: Request,
    meta: dict[str, Any],
    outcome: Outcome,
) -> None:
    """A request that no replica logged: refused, timed out, or its worker gone."""
    status = RequestStatus.TIMEOUT if outcome.status == 504 else RequestStatus.ERROR
    ServedRequest.objects.bulk_create(
        [
            ServedRequest(
                id=uuid.UUID(meta["request_id"]), deployment=deployment,
                canary_id=meta.get("canary"), step=meta.get("step"),
                version_id=replica.version_id if replica else deployment.version_id,
                side=meta.get("side") or ReplicaRole.PRODUCTION, key=storable(request.key),
                prompt=storable(prompt), status=status,
                error=storable(str(outcome.body.get("detail", "")))[:500],
                latency_ms=(time.time() - meta["received_at"]) * 1000,
                family=request.family, task=request.task,
                format_warnings=meta.get("format_warnings") or [],
            )
        ],
        ignore_conflicts=True,
    )  # fmt: skip
