"""Canary releases: a candidate version answers a share (split) or a copy (shadow) of a
deployment's traffic, step by step, judged live by the verifiers.

``start`` checks the candidate (a version of the deployment's model, not the one serving)
and starts its replica; traffic reaches it once the replica is ready. Each request routed
during a step is logged with the canary and the step (``services.serving``); the replicas
wake ``observe`` as verdicts land. Pass rates count only verdicts judged against the pool's
references (a task the request named, looked up by the platform); every routed request
counts for errors, latency and length. ``observe`` reads the step's requests of both sides,
runs the analysis (``canary_analysis``: an always-valid sequential test on verified pass
rates, guardrails on errors, latency p95 and output length) and acts on its outcome:

- failed: rolled back at once (the candidate's replica stops, all traffic to production);
- successful: the next step, or, after the last, promotion: the ``production`` alias and the
  deployment move to the candidate, which needs a promoted checkpoint (an approved report);
  without one the canary waits for a decision, saying so;
- inconclusive (the step's sample limit reached undecided): a person decides: proceed,
  extend the step, or roll back.

A candidate whose worker is gone pauses the canary with the reason; ``resume`` restarts its
replica. Every change bumps ``revision``, which the canary's websocket follows, and each
step's last analysis and decision stay in ``history``, the canary report.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from experiments.models import ModelVersion, Promotion
from experiments.services import registry, releases

from .. import canary_analysis
from ..models import (
    ACTIVE_CANARY_STATES,
    Canary,
    CanaryMode,
    CanaryState,
    Deployment,
    JudgedAgainst,
    ReplicaRole,
    ReplicaState,
    RequestStatus,
    ServedRequest,
)
from . import deployments, routing

logger = logging.getLogger(__name__)
DEFAULT_STEPS = {CanaryMode.SPLIT: [5, 25, 50], CanaryMode.SHADOW: [100]}
MAX_SERIES = 600
"""Points of the live chart kept per canary (older ones are thinned out)."""
DECISIONS = ("proceed", "extend", "rollback")


class CanaryConflict(deployments.DeploymentConflict):
    """A 409: the canary cannot do that in its state."""


# --- starting --------------------------------------------------------------------------------


def start(
    user: AbstractBaseUser,
    deployment: Deployment,
    *,
    candidate: int,
    mode: str = CanaryMode.SPLIT,
    steps: Sequence[Any] | None = None,
    guardrails: dict[str, Any] | None = None,
) -> Canary:
    if deployment.stopped:
        raise CanaryConflict("deployment", f"deployment {deployment.slug!r} is stopped")
    version = (
        ModelVersion.objects.select_related("model")
        .filter(pk=candidate, model__team_id=deployment.team_id)
        .first()
    )
    if version is None:
        raise field_errors([("candidate", f"model version {candidate} does not exist")])
    if version.model_id != deployment.registered_model_id:
        why = (
            f"the candidate must be a version of {deployment.registered_model.name!r}, the "
            f"deployment's model; {version} is not"
        )
        raise field_errors([("candidate", why)])
    if version.pk == deployment.version_id:
        raise field_errors([("candidate", f"{version} is already serving production")])
    if mode not in CanaryMode.values:
        raise field_errors([("mode", f"expected one of {', '.join(CanaryMode.values)}")])
    checked_steps = _checked_steps(mode, steps)
    try:
        rails = canary_analysis.Guardrails.from_dict(guardrails)
    except canary_analysis.GuardrailError as exc:
        raise field_errors([(f"guardrails.{exc.field}", exc.reason)]) from exc
    if routing.active_canary(deployment) is not None:
        raise CanaryConflict("deployment", f"deployment {deployment.slug!r} already has a canary")
    try:
        with transaction.atomic():
            canary = Canary.objects.create(
                deployment=deployment, production=deployment.version, candidate=version,
                mode=mode, steps=checked_steps, guardrails=rails.to_dict(), created_by=user,
                reason="starting the candidate's replica",
            )  # fmt: skip
            canary.replica = deployments.start_replica(deployment, ReplicaRole.CANDIDATE, version)
            canary.save(update_fields=["replica"])
            record(user, "canary.started", canary, team=deployment.team,
                   changes={"candidate": version.number, "mode": mode, "steps": checked_steps,
                            "guardrails": rails.to_dict()})  # fmt: skip
            deployments.publish(deployment, "canary_started", canary=canary.pk)
    except IntegrityError as exc:
        if "one_active_canary_per_deployment" not in str(exc):
            raise
        raise CanaryConflict("deployment", "the deployment already has a canary") from exc
    return canary


def _checked_steps(mode: str, steps: Sequence[Any] | None) -> list[int]:
    if steps is None:
        return list(DEFAULT_STEPS[CanaryMode(mode)])
    if not isinstance(steps, list | tuple) or not steps or len(steps) > 10:
        raise field_errors([("steps", "expected 1 to 10 traffic shares in percent")])
    out = []
    for i, share in enumerate(steps):
        if isinstance(share, bool) or not isinstance(share, int) or not 1 <= share <= 100:
            raise field_errors([(f"steps[{i}]", "a share is a whole percent from 1 to 100")])
        if out and share <= out[-1]:
            raise field_errors([(f"steps[{i}]", "each step must take more traffic than the last")])
        out.append(share)
    return out


# --- watching --------------------------------------------------------------------------------


def sides(canary: Canary) -> tuple[canary_analysis.Side, canary_analysis.Side]:
    """The current step's requests of production and of the candidate. Only verdicts judged
    against a pool task's reference count as verified: an answer a caller supplied says
    nothing about either version, and would let whoever sends requests decide the canary."""
    rows = ServedRequest.objects.filter(canary=canary, step=canary.step).values_list(
        "side", "status", "passed", "judged_against", "latency_ms", "output_tokens"
    )
    empty = {"requests": 0, "errors": 0, "verified": 0, "passed": 0, "free": 0, "free_passed": 0}
    found: dict[str, dict[str, Any]] = {
        side: {**empty, "lat": [], "tok": []} for side in ReplicaRole.values
    }
    for side, status, passed, against, latency, tokens in rows:
        acc = found[side]
        acc["requests"] += 1
        if status != RequestStatus.OK:
            acc["errors"] += 1
            continue
        if passed is not None and against == JudgedAgainst.POOL:
            acc["verified"] += 1
            acc["passed"] += int(passed)
        elif passed is not None and against == JudgedAgainst.REFERENCE_FREE:  # shown only
            acc["free"] += 1
            acc["free_passed"] += int(passed)
        if latency is not None:
            acc["lat"].append(float(latency))
        if tokens is not None:
            acc["tok"].append(int(tokens))

    def side_of(name: str) -> canary_analysis.Side:
        acc = found[name]
        return canary_analysis.Side(
            requests=acc["requests"], errors=acc["errors"], verified=acc["verified"],
            passed=acc["passed"], latencies_ms=tuple(acc["lat"]), output_tokens=tuple(acc["tok"]),
            free_judged=acc["free"], free_passed=acc["free_passed"],
        )  # fmt: skip

    return side_of(ReplicaRole.PRODUCTION), side_of(ReplicaRole.CANDIDATE)


def candidate_share(canary: Canary) -> float:
    """The fraction of requests the candidate answers: its step's share in a split, all of
    them (a copy each) in shadow."""
    return 1.0 if canary.mode == CanaryMode.SHADOW else canary.share / 100


def observe(canary_id: int) -> Canary | None:
    """Analyse the current step of a running canary and act on the outcome."""
    with transaction.atomic():
        canary = (
            Canary.objects.select_for_update(of=("self",))
            .select_related("deployment", "candidate", "replica")
            .filter(pk=canary_id)
            .first()
        )
        if canary is None or canary.state != CanaryState.RUNNING:
            return canary
        production, candidate = sides(canary)
        rails = canary_analysis.Guardrails.from_dict(canary.guardrails)
        analysis = canary_analysis.analyse(production, candidate, rails)
        needed = canary_analysis.answers_needed(
            production, candidate, rails, candidate_share(canary)
        )
        canary.analysis = {
            **analysis.to_dict(),
            "sides": {"production": _side_dict(production), "candidate": _side_dict(candidate)},
            "sources": canary_analysis.verdict_sources(production, candidate),
            "needed": needed.to_dict(),
            "at": timezone.now().isoformat(),
        }
        _add_point(canary, analysis, production, candidate)
        if analysis.outcome == "failed":
            _close_step(canary, "failed", None, analysis.reason)
            end(canary, CanaryState.ROLLED_BACK, f"rolled back: {analysis.reason}")
        elif analysis.outcome == "successful":
            _step_succeeded(canary, None, analysis.reason)
        elif analysis.outcome == "inconclusive":
            canary.state = CanaryState.AWAITING_DECISION
            canary.reason = f"inconclusive at {canary.share}%: {analysis.reason}; decide: proceed, extend or roll back"
            _save(canary)
        else:
            canary.reason = analysis.reason
            _save(canary)
    return canary


def _side_dict(side: canary_analysis.Side) -> dict[str, Any]:
    lat = canary_analysis.p95(side.latencies_ms) if side.latencies_ms else None
    mean_tokens = sum(side.output_tokens) / len(side.output_tokens) if side.output_tokens else None
    return {
        "requests": side.requests, "errors": side.errors, "verified": side.verified,
        "passed": side.passed,
        "pass_rate": side.passed / side.verified if side.verified else None,
        "latency_p95_ms": lat, "mean_output_tokens": mean_tokens,
        "reference_free_judged": side.free_judged, "reference_free_passed": side.free_passed,
        "reference_free_pass_rate": side.free_passed / side.free_judged
        if side.free_judged else None,
    }  # fmt: skip


def _add_point(
    canary: Canary,
    analysis: canary_analysis.Analysis,
    production: canary_analysis.Side,
    candidate: canary_analysis.Side,
) -> None:
    rates = analysis.pass_rate
    point = {
        "t": timezone.now().isoformat(), "step": canary.step, "share": canary.share,
        "production_verified": production.verified, "candidate_verified": candidate.verified,
        "production": rates.get("production"), "candidate": rates.get("candidate"),
        "ci_low": rates.get("ci_low"), "ci_high": rates.get("ci_high"),
    }  # fmt: skip
    last = canary.series[-1] if canary.series else None
    if last and (last["production_verified"], last["candidate_verified"], last["step"]) == (
        point["production_verified"],
        point["candidate_verified"],
        point["step"],
    ):
        return
    series = [*canary.series, point]
    if len(series) > MAX_SERIES:
        series = series[: MAX_SERIES // 2 : 2] + series[MAX_SERIES // 2 :]
    canary.series = series


def _step_succeeded(canary: Canary, user: AbstractBaseUser | None, why: str) -> None:
    last_step = canary.step >= len(canary.steps) - 1
    _close_step(canary, "successful" if user is None else "proceed", user, why)
    if not last_step:
        canary.step += 1
        canary.step_started_at = timezone.now()
        canary.analysis = {}
        canary.reason = f"step {canary.step + 1}: the candidate takes {canary.share}%"
        _save(canary)
        return
    refusal = registry.alias_refusal(canary.candidate, registry.PRODUCTION)
    if refusal is not None:
        canary.state = CanaryState.AWAITING_DECISION
        canary.reason = f"every step passed, but it cannot be promoted: {refusal}"
        _save(canary)
        return
    promote(canary, user)


def _close_step(canary: Canary, outcome: str, user: AbstractBaseUser | None, why: str) -> None:
    canary.history = [
        *canary.history,
        {
            "step": canary.step, "share": canary.share, "outcome": outcome, "reason": why,
            "decided_by": getattr(user, "username", None), "at": timezone.now().isoformat(),
            "started_at": canary.step_started_at.isoformat(), "analysis": canary.analysis,
        },
    ]  # fmt: skip


def promote(canary: Canary, user: AbstractBaseUser | None) -> None:
    """Make the candidate production: the alias, the deployment, and its replica's role."""
    deployment = canary.deployment
    # The alias moves even when nobody is left to name (the starter's account was removed).
    registry.set_alias(user or canary.created_by, canary.candidate, registry.PRODUCTION)
    old = routing.live_replica(deployment, ReplicaRole.PRODUCTION)
    deployment.version = canary.candidate
    deployment.updated_at = timezone.now()
    deployment.save(update_fields=["version", "updated_at"])
    if canary.replica_id:
        type(canary.replica).objects.filter(pk=canary.replica_id).update(
            role=ReplicaRole.PRODUCTION
        )
    if old is not None:
        deployments.stop_replica(old, f"replaced by {canary.candidate} (canary {canary.pk})")
    end(canary, CanaryState.PROMOTED, f"promoted: {canary.candidate} now serves production",
        user=user, stop_candidate=False)  # fmt: skip


def end(
    canary: Canary,
    state: str,
    why: str,
    *,
    user: AbstractBaseUser | None = None,
    stop_candidate: bool = True,
) -> None:
    canary.state, canary.reason, canary.finished_at = state, why, timezone.now()
    _save(canary)
    if stop_candidate and canary.replica_id:
        replica = type(canary.replica).objects.filter(pk=canary.replica_id).first()
        if replica is not None:
            deployments.stop_replica(replica, f"canary {canary.pk} {state.replace('_', ' ')}")
    record(user, f"canary.{state}", canary, team=canary.deployment.team,
           changes={"reason": why, "candidate": canary.candidate.number})  # fmt: skip
    deployments.publish(canary.deployment, f"canary_{state}", canary=canary.pk)


def stop_deployment(user: AbstractBaseUser, deployment: Deployment) -> Deployment:
    """Stop serving: an active canary is cancelled, then the replicas are told to stop."""
    with transaction.atomic():
        canary = routing.active_canary(deployment)
        if canary is not None:
            end(canary, CanaryState.CANCELLED, "the deployment was stopped", user=user)
        return deployments.stop_serving(user, deployment)


def _save(canary: Canary) -> None:
    canary.revision += 1
    canary.save()
    routing.forget(canary.deployment_id)


# --- people ----------------------------------------------------------------------------------


def decide(user: AbstractBaseUser, canary: Canary, decision: str, why: str = "") -> Canary:
    """A person's call on a canary waiting for one: proceed (the step counts as passed),
    extend (collect up to twice the samples at this step) or roll back."""
    if decision not in DECISIONS:
        raise field_errors([("decision", f"expected one of {', '.join(DECISIONS)}")])
    with transaction.atomic():
        canary = _locked(canary)
        if decision == "rollback":
            if canary.state not in ACTIVE_CANARY_STATES:
                raise CanaryConflict("decision", f"the canary is {canary.state}")
            _close_step(canary, "rollback", user, why or "rolled back by a person")
            end(canary, CanaryState.ROLLED_BACK,
                f"rolled back by {user.get_username()}" + (f": {why}" if why else ""),
                user=user)  # fmt: skip
            return canary
        if canary.state != CanaryState.AWAITING_DECISION:
            raise CanaryConflict(
                "decision", f"the canary is {canary.state}, not waiting for a decision"
            )
        if decision == "extend":
            rails = dict(canary.guardrails)
            rails["max_samples"] = int(rails.get("max_samples", 400)) * 2
            canary.guardrails = rails
            canary.state = CanaryState.RUNNING
            canary.reason = (
                f"step extended by {user.get_username()} to {rails['max_samples']} samples"
            )
            _close_step(canary, "extend", user, why or canary.reason)
            _save(canary)
        else:
            last = canary.step >= len(canary.steps) - 1
            refusal = registry.alias_refusal(canary.candidate, registry.PRODUCTION)
            if last and refusal is not None:
                raise CanaryConflict("decision", f"the candidate cannot be promoted: {refusal}")
            canary.state = CanaryState.RUNNING
            _step_succeeded(canary, user, why or f"{user.get_username()} decided to proceed")
        record(user, "canary.decided", canary, team=canary.deployment.team,
               changes={"decision": decision, "reason": why})  # fmt: skip
    return canary


def pause(canary: Canary, why: str, user: AbstractBaseUser | None = None) -> Canary:
    """Stop sending the candidate traffic, saying why (a person, or a lost worker)."""
    with transaction.atomic():
        canary = _locked(canary)
        if canary.state not in (CanaryState.RUNNING, CanaryState.AWAITING_DECISION):
            return canary
        canary.state, canary.reason = CanaryState.PAUSED, why
        _save(canary)
        record(user, "canary.paused", canary, team=canary.deployment.team,
               changes={"reason": why})  # fmt: skip
        deployments.publish(canary.deployment, "canary_paused", canary=canary.pk)
    return canary


def resume(user: AbstractBaseUser, canary: Canary) -> Canary:
    """Send the candidate traffic again; a lost replica is started again first."""
    with transaction.atomic():
        canary = _locked(canary)
        if canary.state != CanaryState.PAUSED:
            raise CanaryConflict("canary", f"the canary is {canary.state}, not paused")
        replica = canary.replica
        if (
            replica is None
            or replica.state not in (ReplicaState.STARTING, ReplicaState.READY)
            or deployments.is_stale(replica)
        ):
            if replica is not None:
                deployments.mark_lost(replica)
            canary.replica = deployments.start_replica(
                canary.deployment, ReplicaRole.CANDIDATE, canary.candidate
            )
        canary.state = CanaryState.RUNNING
        canary.reason = f"resumed by {user.get_username()}"
        _save(canary)
        record(user, "canary.resumed", canary, team=canary.deployment.team)
        deployments.publish(canary.deployment, "canary_resumed", canary=canary.pk)
    return canary


def _locked(canary: Canary) -> Canary:
    return (
        Canary.objects.select_for_update(of=("self",))
        .select_related("deployment", "candidate", "replica")
        .get(pk=canary.pk)
    )


def candidate_lost(canary: Canary, why: str) -> None:
    """The candidate's worker is gone: the canary pauses, saying so."""
    if canary.replica is not None:
        deployments.mark_lost(canary.replica, why)
    pause(canary, f"paused: the candidate's worker is gone ({why}); resume to start it again")


# --- the report ------------------------------------------------------------------------------


def of_checkpoint(team_id: int, checkpoint_id: int, limit: int) -> list[releases.CanaryRelease]:
    """The reports' ``releases.CanaryFinder``: the team's canaries of a checkpoint, newest
    first, listed beside its evaluation report."""
    rows = Canary.objects.filter(
        candidate__checkpoint_id=checkpoint_id, deployment__team_id=team_id
    ).select_related("deployment", "candidate__model")
    return [
        releases.CanaryRelease(
            id=c.pk,
            deployment=c.deployment.slug,
            state=c.state,
            reason=c.reason,
            candidate=str(c.candidate),
            created_at=c.created_at,
        )  # fmt: skip
        for c in rows.order_by("-id")[:limit]
    ]


def shadow_dropped(canary: Canary) -> None:
    """Count a shadow copy the candidate refused: the canary shows how many answers its
    candidate side lacks (busy moments are under-represented in its sample)."""
    Canary.objects.filter(pk=canary.pk).update(shadow_dropped=F("shadow_dropped") + 1)


def report(canary: Canary) -> dict[str, Any]:
    """What the canary did and why, beside the evaluation reports of both versions."""
    production, candidate = canary.production, canary.candidate
    return {
        "canary": canary.pk,
        "deployment": canary.deployment.slug,
        "mode": canary.mode,
        "steps": canary.steps,
        "guardrails": canary.guardrails,
        "state": canary.state,
        "outcome": canary.reason,
        "started_at": canary.created_at.isoformat(),
        "finished_at": canary.finished_at.isoformat() if canary.finished_at else None,
        "production": _version_ref(production),
        "candidate": _version_ref(candidate),
        "history": canary.history,
        "current": canary.analysis,
        "shadow_dropped": canary.shadow_dropped,
    }


def _version_ref(version: ModelVersion) -> dict[str, Any]:
    promotion = (
        Promotion.objects.filter(checkpoint_id=version.checkpoint_id).first()
        if version.checkpoint_id
        else None
    )
    return {
        "id": version.pk,
        "number": version.number,
        "label": str(version),
        "checkpoint": version.checkpoint_id,
        "base_model": version.base_model,
        "evaluation_report": promotion.report_id if promotion else None,
    }
