"""Evaluation suites: saved, named sets of held-out families with their evaluation settings.

A suite's families are checked by the evaluation job's own helper
(``evaluation.resolve_families``) and stored in the job's form, so a job started from a
suite copies them as they are, thresholds included (a report's verdicts use them). A suite in
use (by an evaluation job or an experiment's ``eval.suite``) keeps its families and settings:
changing them, or deleting it, is refused with a 409 that says what uses it; a new suite can
be saved instead. Every write is audited and published to the team's socket.

An experiment naming a suite evaluates the suite's families during training (they must be
curriculum families judged by the curriculum's verifiers) and, once a run succeeds, its final
checkpoint is evaluated on the suite.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors, unique_conflicts_refused
from crucible.realtime.publish import publish_to_team

from .. import config as cfg
from ..models import EvaluationJob, EvaluationSuite, Experiment, Run
from . import evaluation

logger = logging.getLogger(__name__)
SETTINGS = ("k", "temperature", "max_new_tokens", "max_tasks", "seed")
"""The evaluation settings a suite carries, named as on ``evaluation.Settings``."""
CONTENT = ("families", *SETTINGS)
"""What a suite in use may no longer change."""
NAME_TAKEN = "an evaluation suite with this name already exists in the team"


class SuiteInUse(ValidationError):
    """A 409: the suite is used by evaluation jobs or experiments, which the error names."""

    status_code = 409
    default_code = "suite_in_use"


# --- reading -------------------------------------------------------------------------------


def settings_of(suite: EvaluationSuite) -> evaluation.Settings:
    return evaluation.Settings(**{name: getattr(suite, name) for name in SETTINGS})


def in_team(team: Team, suite_id: Any, field: str = "suite") -> EvaluationSuite:
    """The team's suite ``suite_id``; a 400 on ``field`` when there is none."""
    valid = isinstance(suite_id, int) and not isinstance(suite_id, bool) and 0 < suite_id < 2**63
    suite = EvaluationSuite.objects.filter(pk=suite_id, team=team).first() if valid else None
    if suite is None:
        raise field_errors([(field, f"no evaluation suite {suite_id} in the team")])
    return suite


def experiments_using(suite: EvaluationSuite) -> int:
    return Experiment.objects.filter(team_id=suite.team_id, config__eval__suite=suite.pk).count()


def users(suite: EvaluationSuite) -> tuple[int, int]:
    """How many evaluation jobs and experiments use ``suite``."""
    return suite.jobs.count(), experiments_using(suite)


def _in_use(suite: EvaluationSuite, what: str) -> SuiteInUse | None:
    jobs, experiments = users(suite)
    if not jobs and not experiments:
        return None
    parts = [f"{n} {noun}{'s' if n != 1 else ''}" for n, noun in
             ((jobs, "evaluation job"), (experiments, "experiment")) if n]  # fmt: skip
    why = f"suite {suite.name!r} is used by {' and '.join(parts)}: {what}"
    return SuiteInUse({"suite": [why]})


# --- writes --------------------------------------------------------------------------------


def create_suite(
    user: AbstractBaseUser,
    team: Team,
    *,
    name: str,
    families: list[dict[str, Any]],
    settings_: evaluation.Settings,
    description: str = "",
) -> EvaluationSuite:
    """Save a suite; a 400 naming each field at fault (a taken name, a bad family version)."""
    name = name.strip()
    resolved = _checked(team, name, families)
    with unique_conflicts_refused(EvaluationSuite, "name", NAME_TAKEN):
        suite = EvaluationSuite.objects.create(
            team=team, name=name, description=description, families=resolved,
            created_by=user, **dataclasses.asdict(settings_),
        )  # fmt: skip
        record(user, "evaluation_suite.created", suite, team=team, changes=_content(suite))
        _publish(suite, "created")
    return suite


def update_suite(user: AbstractBaseUser, suite: EvaluationSuite, **changes: Any) -> EvaluationSuite:
    """Change the name, description, families or settings given; a suite in use may only be
    renamed or described (409 otherwise)."""
    unknown = sorted(set(changes) - {"name", "description", *CONTENT})
    if unknown:
        raise field_errors([(key, "unknown field") for key in unknown])
    if "name" in changes:
        changes["name"] = changes["name"].strip()
    changed = {k: v for k, v in changes.items() if getattr(suite, k) != v}
    families = _checked(suite.team, changed.get("name"), changed.get("families"), suite.pk)
    if families is not None:
        changed["families"] = families
        if families == suite.families:
            del changed["families"]
    if set(changed) & set(CONTENT):
        refusal = _in_use(suite, "its families and settings stay as they are; save a new suite")
        if refusal:
            raise refusal
    if not changed:
        return suite
    with unique_conflicts_refused(EvaluationSuite, "name", NAME_TAKEN):
        for key, value in changed.items():
            setattr(suite, key, value)
        suite.updated_at = timezone.now()
        suite.save()
        record(user, "evaluation_suite.updated", suite, team=suite.team,
               changes={"changed": sorted(changed)})  # fmt: skip
        _publish(suite, "updated")
    return suite


def delete_suite(user: AbstractBaseUser, suite: EvaluationSuite) -> None:
    """Delete an unused suite; one in use is kept (409), since jobs and experiments name it."""
    refusal = _in_use(suite, "it cannot be deleted")
    if refusal:
        raise refusal
    with transaction.atomic():
        record(user, "evaluation_suite.deleted", suite, team=suite.team)
        _publish(suite, "deleted")
        suite.delete()


def _checked(
    team: Team, name: str | None, families: Any, exclude: int | None = None
) -> list[dict[str, Any]] | None:
    """The families resolved (None when not given), after checking the name (when given); a
    400 naming every field at fault, the name's and the families' together."""
    detail: dict[str, Any] = {}
    if name is not None and not name:
        detail = field_errors([("name", "a suite needs a name")]).detail  # type: ignore[assignment]
    elif name is not None:
        if EvaluationSuite.objects.filter(team=team, name=name).exclude(pk=exclude).exists():
            detail = field_errors([("name", NAME_TAKEN)], code="unique").detail  # type: ignore[assignment]
    resolved = None
    try:
        resolved = None if families is None else evaluation.resolve_families(team, families)
    except ValidationError as exc:
        detail = {**detail, **exc.detail}  # type: ignore[dict-item]
    if detail:
        raise ValidationError(detail)
    return resolved


def _content(suite: EvaluationSuite) -> dict[str, Any]:
    return {
        "name": suite.name,
        "families": suite.families,
        **dataclasses.asdict(settings_of(suite)),
    }


def _publish(suite: EvaluationSuite, change: str) -> None:
    event = {"type": "evaluation_suite.changed", "suite": suite.pk, "change": change}
    team_id = suite.team_id
    transaction.on_commit(lambda: publish_to_team(team_id, event), robust=True)


# --- evaluations from a suite --------------------------------------------------------------


def start_evaluation(
    user: AbstractBaseUser | None,
    suite: EvaluationSuite,
    *,
    checkpoint: int | None = None,
    model: str | None = None,
    prompt_format: Any = None,
    format_of_checkpoint: int | None = None,
) -> EvaluationJob:
    """An evaluation job with the suite's families and settings, recording the suite; its
    prompt format as ``evaluation.start`` chooses it."""
    return evaluation.start(
        user, suite.team, suite.families, settings_of(suite),
        checkpoint=checkpoint, model=model, suite=suite, prompt_format=prompt_format,
        format_of_checkpoint=format_of_checkpoint,
    )  # fmt: skip


def evaluate_finished_run(run: Run) -> EvaluationJob | None:
    """Queue the evaluation of a succeeded run's final checkpoint on its experiment's
    ``eval.suite``; None when it names none or there is nothing to evaluate. Called again
    (a re-delivered message), it returns the job already queued."""
    suite_id = (run.config_of_record.get("eval") or {}).get("suite")
    if suite_id is None:
        return None
    suite = EvaluationSuite.objects.filter(pk=suite_id, team_id=run.team_id).first()
    final = run.checkpoints.order_by("-step").first()
    if suite is None or final is None:
        why = "its suite is gone" if suite is None else "the run saved no checkpoint"
        logger.warning("run.final_evaluation_skipped", extra={"run_id": run.pk, "why": why})
        return None
    queued = EvaluationJob.objects.filter(checkpoint=final, suite=suite).first()
    if queued is not None:
        return queued
    try:
        job = start_evaluation(run.created_by, suite, checkpoint=final.pk)
    except ValidationError as exc:  # the checkpoint left the disk, a version left the team
        logger.warning(
            "run.final_evaluation_refused", extra={"run_id": run.pk, "why": str(exc.detail)}
        )
        return None
    logger.info("run.final_evaluation_queued", extra={"run_id": run.pk, "evaluation_id": job.pk})
    return job


# --- experiments naming a suite ------------------------------------------------------------


def resolve_eval(team: Team, parsed: cfg.ExperimentConfig) -> cfg.ExperimentConfig:
    """With ``eval.suite``, the in-training evaluation takes the suite's families and
    ``max_tasks``; each must be a curriculum family judged by the curriculum's verifier."""
    spec = parsed.eval
    if spec.suite is None:
        return parsed
    where = "config.eval.suite"
    suite = in_team(team, spec.suite, field=where)
    verifiers = {f.pool_version: f.verifier_version for f in parsed.curriculum.families}
    problems = []
    for entry in suite.families:
        version, verifier = entry["pool_version"], entry["verifier_version"]
        if version not in verifiers:
            problems.append(f"pool version {version} ({entry['family']}) is not in the curriculum")
        elif verifiers[version] != verifier:
            problems.append(
                f"pool version {version} ({entry['family']}) is judged by verifier version "
                f"{verifier} in the suite and {verifiers[version]} in the curriculum"
            )
    if problems:
        raise field_errors([(where, f"suite {suite.name!r}: {'; '.join(problems)}")])
    families = [entry["pool_version"] for entry in suite.families]
    evaluated = cfg.EvalSpec(spec.every, families, suite.max_tasks, suite.pk)
    return dataclasses.replace(parsed, eval=evaluated)
