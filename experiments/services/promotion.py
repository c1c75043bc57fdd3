"""Promoting a checkpoint: only on an approved report whose candidate it is.

The gate is the review: a report's figures are frozen once it enters review, a new
evaluation makes a new version, and only the newest version of a lineage can let its
checkpoint through (an approval of an older version does not carry over to figures nobody
approved). A report whose figures show a regressed family lets its checkpoint through only
with an approval that overrode the regression in writing; that reason goes into the audit and
the model version's lineage. A checkpoint is promoted once; the promotion names the report,
and is audited and pushed to the team's socket.
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from rest_framework.exceptions import ValidationError

from crucible.accounts.services import record
from crucible.realtime.publish import publish_to_team

from ..models import Checkpoint, EvaluationReport, Promotion, ReportState
from . import reports


class PromotionRefused(ValidationError):
    """A 409 whose errors name the field at fault (``report`` or ``checkpoint``)."""

    status_code = 409
    default_code = "promotion_refused"


def refusal(checkpoint: Checkpoint, report: EvaluationReport) -> str | None:
    """Why ``report`` cannot promote ``checkpoint``; None when it can."""
    if report.team_id != checkpoint.run.team_id:
        return f"report {report.pk} is not in this checkpoint's team"
    if report.candidate.checkpoint_id != checkpoint.pk:
        return (
            f"report {report.pk} evaluates {report.candidate.subject}, not checkpoint "
            f"{checkpoint.pk} (step {checkpoint.step} of run {checkpoint.run.number})"
        )
    if report.state != ReportState.APPROVED:
        return f"report {report.pk} v{report.version} is {report.get_state_display().lower()}, not approved"
    regressed = reports.regressed_families(report)
    if regressed and not reports.overrides(report):
        # Approved before overrides were required: nobody has said why the drop is accepted.
        return (
            f"report {report.pk} v{report.version} has regressed families "
            f"({', '.join(regressed)}) and no approval overrides them with a reason"
        )
    newer = EvaluationReport.objects.filter(
        team_id=report.team_id, lineage=report.lineage, version__gt=report.version
    ).order_by("-version")
    if (latest := newer.first()) is not None:
        return (
            f"report {report.pk} v{report.version} was superseded by v{latest.version} "
            f"(report {latest.pk}); approvals do not carry over to new figures"
        )
    if not (Path(checkpoint.path) / "model").is_dir():
        return f"checkpoint {checkpoint.pk} is no longer on disk"
    return None


def promote(
    user: AbstractBaseUser, checkpoint: Checkpoint, report: EvaluationReport, note: str = ""
) -> Promotion:
    """Promote ``checkpoint`` on ``report``; ``PromotionRefused`` (409) says why not."""
    why = refusal(checkpoint, report)
    if why is not None:
        raise PromotionRefused({"report": [why]}, code="promotion_refused")
    team = report.team
    try:
        with transaction.atomic():
            made = Promotion.objects.create(
                team=team, checkpoint=checkpoint, report=report, note=note, promoted_by=user
            )
            record(
                user, "checkpoint.promoted", checkpoint, team=team,
                changes={"report": report.pk, "version": report.version, "note": note,
                         "overrides": reports.overrides(report)},
                label=f"{checkpoint.run.title} run {checkpoint.run.number}, step {checkpoint.step}",
            )  # fmt: skip
    except IntegrityError:
        raise PromotionRefused(
            {"checkpoint": [f"checkpoint {checkpoint.pk} is already promoted"]},
            code="promotion_refused",
        ) from None
    event = {
        "type": "checkpoint.promoted",
        "checkpoint": checkpoint.pk,
        "run": checkpoint.run_id,
        "report": report.pk,
    }
    transaction.on_commit(lambda: publish_to_team(team.pk, event), robust=True)
    return made
