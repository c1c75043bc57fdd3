"""Regression reports and their review.

A report freezes the comparison of two finished evaluation jobs (``experiments.stats``): per
family the success of each on the same tasks, the difference with its paired-bootstrap
interval and a verdict, a one-line headline, and both capability profiles. Its figures are
written once; evaluating again and comparing makes the next version of the same lineage,
with no reviews carried over. Review: draft → in review → approved / changes requested,
comments threaded on the report, a family row or a plot (by any member), decisions by the roles
the team's policy names (editors and admins, not the author, by default), approvals counted
against that policy, and an approval of a regressed family only with a written override reason
that the report shows and a promotion carries on; every step audited and pushed to the team's
socket.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from crucible.accounts.models import Membership, Team
from crucible.accounts.services import membership_of, record
from crucible.api.field_errors import field_errors
from crucible.realtime.publish import publish_to_team

from .. import health, stats
from ..models import (
    REPORT_CHARTS,
    EvaluationJob,
    EvaluationReport,
    EvaluationState,
    ReportComment,
    ReportReview,
    ReportState,
    ReviewDecision,
    ReviewPolicy,
)
from .evaluation import outcomes

BOOTSTRAP_SEED = 0


class ReviewRefused(ValidationError):
    """A 403 naming ``decision``: the caller's role is not one the team's policy lets review
    (a viewer may still comment)."""

    status_code = 403
    default_code = "forbidden"


def figures(candidate: EvaluationJob, baseline: EvaluationJob) -> dict[str, Any]:
    """Everything a report shows, computed from the two jobs' per-task results."""
    cand, base = outcomes(candidate), outcomes(baseline)
    thresholds = {f["family"]: f["threshold_pts"] for f in candidate.families}
    rows = stats.compare(cand, base, thresholds, seed=BOOTSTRAP_SEED)
    return {
        "headline": stats.headline(rows),
        "families": [asdict(r) for r in rows],
        "candidate_profile": stats.profile(cand),
        "baseline_profile": stats.profile(base),
        "signals": training_signals(candidate),
        "settings": {
            "k": candidate.k,
            "temperature": candidate.temperature,
            "bootstrap_resamples": stats.DEFAULT_RESAMPLES,
            "confidence": stats.DEFAULT_CONFIDENCE,
            "seed": BOOTSTRAP_SEED,
        },
    }


def training_signals(job: EvaluationJob) -> dict[str, Any] | None:
    """The reward-hacking and drift signals of the run that trained ``job``'s checkpoint, as
    they stood when the report was made (frozen with the rest); None for a base model."""
    if job.checkpoint_id is None:
        return None
    run = job.checkpoint.run
    return {"run": run.pk, "run_step": run.step, **health.stored_states(run.health)}


def create(
    user: AbstractBaseUser, team: Team, candidate: EvaluationJob, baseline: EvaluationJob
) -> EvaluationReport:
    """A draft report of ``candidate`` against ``baseline`` (both finished jobs of ``team``)."""
    problems = [
        (name, f"evaluation {job.pk} has not succeeded (it is {job.state})")
        for name, job in (("candidate", candidate), ("baseline", baseline))
        if job.state != EvaluationState.SUCCEEDED
    ]
    if candidate.pk == baseline.pk:
        problems.append(("baseline", "compare the candidate with another evaluation"))
    if problems:
        raise field_errors(problems)
    data = figures(candidate, baseline)
    if not data["families"]:
        reason = f"evaluation {baseline.pk} shares no held-out task with evaluation {candidate.pk}"
        raise field_errors([("baseline", reason)])
    lineage = f"{candidate.subject} vs {baseline.subject}"[:200]
    with transaction.atomic():
        latest = EvaluationReport.objects.select_for_update().filter(team=team, lineage=lineage)
        version = (latest.aggregate(v=Max("version"))["v"] or 0) + 1
        report = EvaluationReport.objects.create(
            team=team, candidate=candidate, baseline=baseline, lineage=lineage,
            version=version, headline=data["headline"], figures=data, created_by=user,
        )  # fmt: skip
        record(user, "report.created", report, team=team, changes={"headline": report.headline})
        _publish(report, "created")
    return report


def policy(team: Team) -> ReviewPolicy:
    """The team's review rule (the defaults when it never set one)."""
    return ReviewPolicy.objects.filter(team=team).first() or ReviewPolicy(team=team)


def set_policy(user: AbstractBaseUser, team: Team, **changes: Any) -> ReviewPolicy:
    """Change the named parts of the team's rule (``required_approvals``,
    ``authors_may_approve``, ``approver_roles``); the rest stay as they are."""
    with transaction.atomic():
        rule = ReviewPolicy.objects.select_for_update().filter(team=team).first()
        rule = rule or ReviewPolicy(team=team)
        for key, value in changes.items():
            setattr(rule, key, value)
        rule.save()
        record(user, "review_policy.changed", team, team=team, changes=dict(changes))
    return rule


def submit(user: AbstractBaseUser, report: EvaluationReport) -> EvaluationReport:
    """Draft → in review; from here on its figures are what reviewers approve."""
    with transaction.atomic():
        taken = EvaluationReport.objects.filter(pk=report.pk, state=ReportState.DRAFT).update(
            state=ReportState.IN_REVIEW, submitted_at=timezone.now()
        )
        if not taken:
            raise field_errors([("state", f"only a draft can be submitted (it is {report.state})")])
        report.refresh_from_db()
        record(user, "report.submitted", report, team=report.team)
        _publish(report, "submitted")
    return report


def regressed_families(report: EvaluationReport) -> list[str]:
    """The families the report's frozen figures call regressed."""
    rows = report.figures.get("families", [])
    return [row["family"] for row in rows if row.get("verdict") == stats.REGRESSED]


def review(
    user: AbstractBaseUser,
    report: EvaluationReport,
    decision: str,
    note: str = "",
    override_reason: str = "",
) -> EvaluationReport:
    """Record ``user``'s decision; enough approvals approve the report, one request for
    changes sends it back (a fix is a new version). Only the roles the team's policy names
    review; approving a report with a regressed family needs a written override reason."""
    rule = policy(report.team)
    override_reason = override_reason.strip()
    with transaction.atomic():
        report = EvaluationReport.objects.select_for_update().get(pk=report.pk)
        if report.state != ReportState.IN_REVIEW:
            raise field_errors([("state", f"the report is not in review (it is {report.state})")])
        _check_reviewer(user, report, rule)
        regressed = regressed_families(report)
        _check_override(decision, regressed, override_reason)
        ReportReview.objects.update_or_create(
            report=report, reviewer=user,
            defaults={"decision": decision, "note": note, "override_reason": override_reason},
        )  # fmt: skip
        report.state = _state_after(report, rule)
        if report.state != ReportState.IN_REVIEW:
            report.decided_at = timezone.now()
        report.save(update_fields=["state", "decided_at"])
        record(user, f"report.{decision}", report, team=report.team, changes={"note": note})
        if override_reason:
            record(user, "report.regression_overridden", report, team=report.team,
                   changes={"families": regressed, "reason": override_reason})  # fmt: skip
        _publish(report, "reviewed")
    return report


def _check_reviewer(user: AbstractBaseUser, report: EvaluationReport, rule: ReviewPolicy) -> None:
    membership = membership_of(user, report.team)
    role = membership.role if membership is not None else None
    if role not in rule.approver_roles:
        roles = " and ".join(rule.approver_roles)
        why = f"the team's review policy lets {roles} review; you are {role or 'not a member'}"
        raise ReviewRefused({"decision": [why]})
    if report.created_by_id == user.pk and not rule.authors_may_approve:
        raise field_errors(
            [("decision", "the team does not let a report's author review it")],
            code="forbidden",
        )


def _check_override(decision: str, regressed: list[str], reason: str) -> None:
    """An approval of a regression must say why in its own field, so it is never a note's
    aside; nothing else may carry an override."""
    if decision == ReviewDecision.APPROVE and regressed and not reason:
        why = f"{', '.join(regressed)} regressed: approving needs a written override reason"
        raise field_errors([("override_reason", why)])
    if reason and decision != ReviewDecision.APPROVE:
        raise field_errors([("override_reason", "only an approval overrides a regression")])
    if reason and not regressed:
        raise field_errors(
            [("override_reason", "no family regressed: there is nothing to override")]
        )


def _state_after(report: EvaluationReport, rule: ReviewPolicy) -> str:
    reviews = list(report.reviews.all())
    if any(r.decision == ReviewDecision.REQUEST_CHANGES for r in reviews):
        return ReportState.CHANGES_REQUESTED
    if len(counted_approvals(report, rule, reviews)) >= rule.required_approvals:
        return ReportState.APPROVED
    return ReportState.IN_REVIEW


def counted_approvals(
    report: EvaluationReport, rule: ReviewPolicy, reviews: list[ReportReview]
) -> list[ReportReview]:
    """The approvals the rule counts: by a role it names (as the reviewer's role is now),
    not by the author unless it allows that, and each overriding any regression."""
    roles = dict(Membership.objects.filter(team_id=report.team_id).values_list("user_id", "role"))
    regressed = bool(regressed_families(report))
    return [
        r
        for r in reviews
        if r.decision == ReviewDecision.APPROVE
        and roles.get(r.reviewer_id) in rule.approver_roles
        and (rule.authors_may_approve or r.reviewer_id != report.created_by_id)
        and (r.override_reason or not regressed)
    ]


def overrides(report: EvaluationReport) -> list[dict[str, Any]]:
    """Who approved the report over its regressed families, and why: what travels with a
    checkpoint promoted on it."""
    families = regressed_families(report)
    if not families:
        return []
    rows = report.reviews.filter(decision=ReviewDecision.APPROVE).exclude(override_reason="")
    return [
        {"reviewer": r.reviewer.get_username(), "reason": r.override_reason, "families": families}
        for r in rows.select_related("reviewer")
    ]


def commentable_charts(report: EvaluationReport) -> dict[str, str]:
    """The report's plots a comment can be about, by key, with their titles (the signals
    only where the candidate came from a training run, stability over turns only where a
    family was played as an environment)."""
    figures = report.figures
    shown = {
        "signals": bool(figures.get("signals")),
        "stability": any(
            figures.get(side, {}).get("stability")
            for side in ("candidate_profile", "baseline_profile")
        ),
    }
    return {key: title for key, title in REPORT_CHARTS.items() if shown.get(key, True)}


def comment(
    user: AbstractBaseUser,
    report: EvaluationReport,
    body: str,
    *,
    family: str = "",
    chart: str = "",
    parent: int | None = None,
) -> ReportComment:
    """A comment on the report, one family row or one plot, possibly a reply in a thread
    (a reply is about what its parent is about)."""
    problems = []
    families = {row["family"] for row in report.figures.get("families", [])}
    if family and family not in families:
        problems.append(("family", f"the report has no family {family!r}"))
    charts = commentable_charts(report)
    if chart and chart not in charts:
        problems.append(
            ("chart", f"the report has no plot {chart!r}; its plots: {', '.join(charts)}")
        )
    replied = None
    if parent is not None:
        replied = report.comments.filter(pk=parent).first()
        if replied is None:
            problems.append(("parent", f"comment {parent} is not on this report"))
    if problems:
        raise field_errors(problems)
    with transaction.atomic():
        made = ReportComment.objects.create(
            report=report, author=user, body=body, parent=replied,
            family=family or (replied.family if replied else ""),
            chart=chart or (replied.chart if replied else ""),
        )  # fmt: skip
        record(user, "report.commented", report, team=report.team, changes={"comment": made.pk})
        _publish(report, "commented")
    return made


def _publish(report: EvaluationReport, change: str) -> None:
    event = {
        "type": "report.updated",
        "report": report.pk,
        "state": str(report.state),
        "change": change,
    }
    team_id = report.team_id
    transaction.on_commit(lambda: publish_to_team(team_id, event), robust=True)
