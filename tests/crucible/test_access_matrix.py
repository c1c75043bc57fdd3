"""Who may call what: every /api/ endpoint × every persona → the status it must answer.

One table, ``MATRIX``: a row per endpoint (method and URL, with a body where the endpoint
reads one) and the status each persona gets. The personas: nobody signed in, a user in no
team, a viewer, an editor and an admin of the team owning every object, an admin of another
team, and a token bound to that other team whose user is also an admin of the owning team
(the token, not the user, decides what it reaches). Another team's object is a 404, never a
403 that would confirm it exists.

One object of each kind is made once for the module, inside a transaction rolled back at the
end; each cell runs in its own savepoint, so an editor's DELETE does not take the object away
from the next cell. Most writes are sent with a body that names the object but lacks what the
action needs, so an allowed caller gets the action's 400 (past every access check) instead of
running it; those that need no body (a delete, a cancel) run, and the savepoint undoes them. ``test_it_has_a_row_for_every_api_route`` walks
the URL resolver, so a new endpoint without a row fails, naming it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.utils import timezone
from rest_framework.test import APIClient

from crucible.accounts import services as accounts
from crucible.accounts.models import AuditEvent, Membership, Role
from experiments.models import (
    Checkpoint,
    CheckpointUpload,
    EvaluationReport,
    PreflightReport,
    Promotion,
    Rollout,
    Run,
    Worker,
)
from experiments.services import evaluation, registry, reports, suites
from experiments.services import experiments as experiment_service
from serving.models import Canary, Deployment
from tasks_app.models import ExampleProposal, LabelledExample
from tasks_app.services import curricula
from tests.experiments.reports_setup import finished_job
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db

PERSONAS = ("anonymous", "no_team", "viewer", "editor", "admin", "other_team", "other_token")
OWNING, OTHER = "owning", "other"


@dataclass(frozen=True)
class Row:
    method: str
    url: str
    """With ``{name}`` placeholders for the world's objects (``World.ids``)."""
    expected: tuple[int, ...]
    """One status per persona, in ``PERSONAS`` order."""
    body: dict[str, Any] | None = None


def row(method: str, url: str, expected: str, body: dict[str, Any] | None = None) -> Row:
    statuses = tuple(0 if s == "?" else int(s) for s in expected.split())
    assert len(statuses) == len(PERSONAS), (method, url)
    return Row(method, url, statuses, body)


T = {"team": OWNING}  # a create body naming the owning team, nothing else

MATRIX: list[Row] = [
    # --- accounts --------------------------------------------------------------------------
    row("POST", "/api/v1/auth/login/", "400 400 400 400 400 400 400", {"username": "admin"}),
    row("POST", "/api/v1/auth/logout/", "401 204 204 204 204 204 204"),
    row("GET", "/api/v1/auth/me/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/teams/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/teams/", "401 400 400 400 400 400 400", {}),
    row("GET", "/api/v1/teams/{team}/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/teams/{team}/members/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/teams/{team}/members/", "401 404 403 403 201 404 404", {"username": "no_team", "role": "viewer"}),
    row("GET", "/api/v1/teams/{team}/members/{member}/", "401 404 200 200 200 404 404"),
    row("PATCH", "/api/v1/teams/{team}/members/{member}/", "401 404 403 403 200 404 404", {"role": "editor"}),
    row("DELETE", "/api/v1/teams/{team}/members/{member}/", "401 404 204 403 204 404 404"),
    row("GET", "/api/v1/teams/{team}/summary/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/teams/{team}/review-policy/", "401 404 200 200 200 404 404"),
    row("PUT", "/api/v1/teams/{team}/review-policy/", "401 404 403 403 400 404 404", {"required_approvals": 0}),
    row("GET", "/api/v1/teams/{team}/health-thresholds/", "401 404 200 200 200 404 404"),
    row("PUT", "/api/v1/teams/{team}/health-thresholds/", "401 404 403 400 400 404 404", {"window": "x"}),
    row("GET", "/api/v1/tokens/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/tokens/", "401 400 400 400 400 400 400", {}),
    row("GET", "/api/v1/tokens/{token}/", "401 404 404 404 200 404 404"),
    row("DELETE", "/api/v1/tokens/{token}/", "401 404 404 404 204 404 404"),
    row("GET", "/api/v1/audit/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/audit/actions/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/audit/{audit}/", "401 404 200 200 200 404 404"),
    # --- catalogue and the platform's own ---------------------------------------------------
    row("GET", "/api/v1/", "401 200 200 200 200 200 200"),
    row("GET", "/api/schema/", "200 200 200 200 200 200 200"),
    row("GET", "/api/docs/", "200 200 200 200 200 200 200"),
    row("GET", "/api/redoc/", "200 200 200 200 200 200 200"),
    row("GET", "/api/v1/family-kinds/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/verifier-kinds/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/environment-kinds/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/algorithms/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/algorithms/presets/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/metrics/catalogue/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/models/", "401 403 200 200 200 200 200"),
    row("GET", "/api/v1/workers/", "401 403 200 200 200 200 200"),
    row("GET", "/api/v1/sandbox/", "401 403 200 200 200 200 200"),
    row("GET", "/api/v1/usage/", "401 400 200 200 200 200 200"),
    row("GET", "/api/v1/usage/rates/", "401 403 200 200 200 200 200"),
    row("POST", "/api/v1/verifiers/playground/", "401 400 400 400 400 400 400", {}),
    row("POST", "/api/v1/verifiers/playground/episode/", "401 400 400 400 400 400 400", {}),
    # --- task families and pools -----------------------------------------------------------
    row("GET", "/api/v1/families/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/families/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/families/{family}/", "401 404 200 200 200 404 404"),
    row("PATCH", "/api/v1/families/{family}/", "401 404 403 400 400 404 404", {"name": ""}),
    row("DELETE", "/api/v1/families/{family}/", "401 404 403 200 200 404 404"),
    row("POST", "/api/v1/families/{family}/archive/", "401 404 403 200 200 404 404"),
    row("POST", "/api/v1/families/{family}/restore/", "401 404 403 200 200 404 404"),
    row("GET", "/api/v1/families/{family}/removal/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/families/{family}/preview/", "401 404 403 400 400 404 404", {"difficulty": "x"}),
    row("GET", "/api/v1/families/{family}/versions/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/families/{family}/versions/generate/", "401 404 403 400 400 404 404", {}),
    row("POST", "/api/v1/families/{family}/versions/dataset/", "401 404 403 400 400 404 404", {}),
    row("POST", "/api/v1/families/{family}/versions/edit/", "401 404 403 400 400 404 404", {}),
    row("POST", "/api/v1/families/{family}/versions/inspect/", "401 404 403 415 415 404 404", {}),
    row("POST", "/api/v1/families/{family}/versions/upload/", "401 404 403 415 415 404 404", {}),
    row("POST", "/api/v1/families/{family}/versions/upload/preview/", "401 404 403 415 415 404 404", {}),
    row("GET", "/api/v1/pool-versions/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/pool-versions/{pool}/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/pool-versions/{pool}/changes/", "401 400 400 400 400 400 400"),
    row("GET", "/api/v1/pool-versions/{pool}/tasks/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/pool-versions/{pool}/jobs/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/pool-versions/{pool}/jobs/", "401 404 403 400 400 404 404", {"kind": "x"}),
    # --- verifiers, curricula, proposals ----------------------------------------------------
    row("GET", "/api/v1/verifiers/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/verifiers/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/verifiers/{verifier}/", "401 404 200 200 200 404 404"),
    row("PATCH", "/api/v1/verifiers/{verifier}/", "401 404 403 400 400 404 404", {"name": ""}),
    row("DELETE", "/api/v1/verifiers/{verifier}/", "401 404 403 400 400 404 404"),
    row("GET", "/api/v1/verifiers/{verifier}/versions/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/verifiers/{verifier}/versions/", "401 404 403 400 400 404 404", {}),
    row("POST", "/api/v1/verifiers/{verifier}/versions/{verifier_version}/evaluate/", "401 404 403 200 200 404 404", {"x": 1}),
    row("POST", "/api/v1/verifiers/{verifier}/versions/{verifier_version}/calibrate/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/verifiers/{verifier}/examples/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/verifiers/{verifier}/examples/", "401 404 403 400 400 404 404", {}),
    row("DELETE", "/api/v1/verifiers/{verifier}/examples/{example}/", "401 404 403 204 204 404 404"),
    row("GET", "/api/v1/curricula/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/curricula/", "401 400 400 400 400 400 400", T),
    row("POST", "/api/v1/curricula/preview/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/curricula/{curriculum}/", "401 404 200 200 200 404 404"),
    row("PATCH", "/api/v1/curricula/{curriculum}/", "401 404 403 400 400 404 404", {"name": ""}),
    row("DELETE", "/api/v1/curricula/{curriculum}/", "401 404 403 204 204 404 404"),
    row("POST", "/api/v1/curricula/{curriculum}/preview/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/example-proposals/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/example-proposals/{proposal}/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/example-proposals/{proposal}/accept/", "401 404 403 400 400 404 404", {"x": 1}),
    row("POST", "/api/v1/example-proposals/{proposal}/reject/", "401 404 403 400 400 404 404", {"x": 1}),
    # --- experiments and runs --------------------------------------------------------------
    row("GET", "/api/v1/experiments/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/experiments/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/experiments/{experiment}/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/experiments/{experiment}/clone/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/experiments/{experiment}/diff/", "401 404 400 400 400 404 404"),
    row("POST", "/api/v1/experiments/{experiment}/launch/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/preflights/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/preflights/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/preflights/{preflight}/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/runs/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/runs/compare/", "401 400 400 400 400 400 400"),
    row("GET", "/api/v1/runs/{run}/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/runs/{run}/cancel/", "401 404 403 200 200 404 404", {"x": 1}),
    row("POST", "/api/v1/runs/", "401 400 400 400 400 400 400", {"x": 1}),
    row("GET", "/api/v1/runs/{run}/checkpoints/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/checkpoints/{checkpoint}/export/", "401 404 409 409 409 404 404"),
    row("GET", "/api/v1/runs/{run}/rollouts/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/runs/{run}/finish/", "401 404 403 400 400 404 404", {"x": 1}),
    row("POST", "/api/v1/runs/{run}/checkpoint-uploads/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/checkpoint-uploads/{upload}/", "401 404 403 200 200 404 404"),
    row("DELETE", "/api/v1/checkpoint-uploads/{upload}/", "401 404 403 204 204 404 404"),
    row("PUT", "/api/v1/checkpoint-uploads/{upload}/files/", "401 404 403 400 400 404 404"),
    row("POST", "/api/v1/checkpoint-uploads/{upload}/complete/", "401 404 403 409 409 404 404"),
    row("GET", "/api/v1/runs/{run}/rollout-groups/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/runs/{run}/rollouts/{rollout}/flag/", "401 404 400 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/runs/{run}/curriculum/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/runs/{run}/curriculum/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/runs/{run}/events/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/runs/{run}/pause/", "401 404 403 200 200 404 404", {"x": 1}),
    row("POST", "/api/v1/runs/{run}/resume/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/runs/{run}/usage/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/runs/{run}/metrics/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/runs/{run}/metrics/", "401 404 403 400 400 404 404", {"x": 1}),
    row("GET", "/api/v1/runs/{run}/metrics/raw/", "401 404 400 400 400 404 404"),
    # --- evaluation, review, promotion, registry -------------------------------------------
    row("GET", "/api/v1/evaluations/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/evaluations/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/evaluations/{evaluation}/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/evaluation-suites/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/evaluation-suites/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/evaluation-suites/{suite}/", "401 404 200 200 200 404 404"),
    row("PATCH", "/api/v1/evaluation-suites/{suite}/", "401 404 403 400 400 404 404", {"name": ""}),
    row("DELETE", "/api/v1/evaluation-suites/{suite}/", "401 404 403 204 204 404 404"),
    row("GET", "/api/v1/reports/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/reports/", "401 404 403 400 400 404 404", {"candidate": "{evaluation}", "baseline": "{evaluation}"}),
    row("GET", "/api/v1/reports/{report}/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/reports/{report}/export/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/reports/{report}/submit/", "401 404 403 400 400 404 404"),
    row("POST", "/api/v1/reports/{report}/review/", "401 404 403 200 400 404 404", {"decision": "approve"}),
    row("POST", "/api/v1/reports/{report}/comments/", "401 404 201 201 201 404 404", {"body": "a comment"}),
    row("GET", "/api/v1/promotions/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/promotions/", "401 404 403 409 409 404 404", {"checkpoint": "{checkpoint}", "report": "{report}"}),
    row("GET", "/api/v1/registered-models/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/registered-models/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/registered-models/{model}/", "401 404 200 200 200 404 404"),
    row("PATCH", "/api/v1/registered-models/{model}/", "401 404 403 400 400 404 404", {"name": ""}),
    row("DELETE", "/api/v1/registered-models/{model}/", "401 404 403 409 409 404 404"),
    row("GET", "/api/v1/model-versions/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/model-versions/", "401 404 403 400 400 404 404", {"model": "{model}"}),
    row("GET", "/api/v1/model-versions/{model_version}/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/model-versions/{model_version}/alias/", "401 404 403 400 400 404 404", {"alias": "Not A Slug"}),
    row("DELETE", "/api/v1/model-versions/{model_version}/alias/", "401 404 403 400 400 404 404", {"alias": "nothing"}),
    row("POST", "/api/v1/model-versions/{model_version}/check-format/", "401 404 400 400 400 404 404", {}),
    # --- serving ---------------------------------------------------------------------------
    row("GET", "/api/v1/deployments/", "401 200 200 200 200 200 200"),
    row("POST", "/api/v1/deployments/", "401 400 400 400 400 400 400", T),
    row("GET", "/api/v1/deployments/{deployment}/", "401 404 200 200 200 404 404"),
    row("PATCH", "/api/v1/deployments/{deployment}/", "401 404 403 400 400 404 404", {"name": ""}),
    row("DELETE", "/api/v1/deployments/{deployment}/", "401 404 403 409 409 404 404"),
    row("POST", "/api/v1/deployments/{deployment}/start/", "401 404 403 200 200 404 404", {"x": 1}),
    row("POST", "/api/v1/deployments/{deployment}/stop/", "401 404 403 200 200 404 404", {"x": 1}),
    row("POST", "/api/v1/deployments/{deployment}/canary/", "401 404 403 400 400 404 404", {}),
    row("POST", "/api/v1/deployments/{deployment}/generate/", "401 404 400 400 400 404 404", {}),
    row("GET", "/api/v1/deployments/{deployment}/requests/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/canaries/", "401 200 200 200 200 200 200"),
    row("GET", "/api/v1/canaries/{canary}/", "401 404 200 200 200 404 404"),
    row("GET", "/api/v1/canaries/{canary}/report/", "401 404 200 200 200 404 404"),
    row("POST", "/api/v1/canaries/{canary}/pause/", "401 404 403 400 400 404 404", {"x": 1}),
    row("POST", "/api/v1/canaries/{canary}/resume/", "401 404 403 409 409 404 404", {"x": 1}),
    row("POST", "/api/v1/canaries/{canary}/decide/", "401 404 403 400 400 404 404", {}),
]


# --- the world: one object of each kind ------------------------------------------------------


@dataclass
class World:
    ids: dict[str, Any]
    tokens: dict[str, str | None]


def build_world() -> World:
    users = {
        name: get_user_model().objects.create_user(name, f"{name}@example.com", "pw-unused-1")
        for name in ("admin", "editor", "viewer", "no_team", "other_team", "other_token")
    }
    team = accounts.create_team(users["admin"], "Owning", OWNING)
    other = accounts.create_team(users["other_team"], "Other", OTHER)
    for name, role in (("editor", Role.EDITOR), ("viewer", Role.VIEWER), ("other_token", Role.ADMIN)):
        Membership.objects.create(user=users[name], team=team, role=role)
    Membership.objects.create(user=users["other_token"], team=other, role=Role.ADMIN)
    tokens: dict[str, str | None] = {"anonymous": None}
    for name in PERSONAS[1:]:
        bound = other if name == "other_token" else None
        tokens[name] = accounts.create_token(users[name], "matrix", team=bound).secret
    admin = users["admin"]

    advertise()
    pool = digit_version(admin, team)
    verifier_version = digit_verifier(admin, team)
    verifier = verifier_version.verifier
    example = LabelledExample.objects.create(verifier=verifier, response="12", label="good")
    proposal = ExampleProposal.objects.create(
        verifier=verifier, version=verifier_version, response="21", label="bad",
        judged_passed=True, source="matrix:1",
    )  # fmt: skip
    config = config_for(pool, verifier_version)
    curriculum = curricula.create_curriculum(
        admin, team, config={"families": [{"version": pool.pk}]}, name="Digits", slug="digits"
    )
    experiment = experiment_service.create_experiment(admin, team, name="sort", config=config)
    # No worker from here on: a launch is refused after the access checks, never started.
    Worker.objects.update(stopped_at=timezone.now())
    run = Run.objects.create(experiment=experiment, team=team, number=1, created_by=admin)
    checkpoint = Checkpoint.objects.create(run=run, step=40, path="/nonexistent/step-40")
    rollout = Rollout.objects.create(
        run=run, step=1, group=0, sample=0, family="digits", prompt="p", completion="c"
    )
    upload = CheckpointUpload.objects.create(
        run=run, step=41, files=[{"path": "config.json", "size": 2, "sha256": "0" * 64}],
        total_bytes=2,
    )  # fmt: skip
    job = finished_job(admin, team, [4, 4, 3, 4], subject="candidate")
    job.checkpoint = checkpoint
    job.save()
    base = finished_job(admin, team, [1, 2, 1, 0], subject="baseline")
    report = reports.create(admin, team, job, base)
    reports.submit(admin, report)  # in review: who may decide is in the table
    promotion = Promotion.objects.create(
        team=team, checkpoint=checkpoint, report=EvaluationReport.objects.get(pk=report.pk),
        promoted_by=admin,
    )  # fmt: skip
    preflight = PreflightReport.objects.create(
        team=team, experiment=experiment, config=experiment.config, config_hash="x",
        tasks_per_level=1,
    )
    families = [{"pool_version": pool.pk, "verifier_version": verifier_version.pk}]
    suite = suites.create_suite(
        admin, team, name="held-out", families=families, settings_=evaluation.Settings()
    )
    model = registry.create_model(admin, team, name="sorter")
    version = registry.register(admin, model, checkpoint=checkpoint.pk)
    deployment = Deployment.objects.create(
        team=team, name="Sorter", slug="sorter", registered_model=model, version=version,
        created_by=admin,
    )  # fmt: skip
    canary = Canary.objects.create(
        deployment=deployment, production=version, candidate=version, mode="split",
        state="rolled_back", created_by=admin,
    )  # fmt: skip
    ids = {
        "family": pool.family_id, "pool": pool.pk, "verifier": verifier.pk,
        "verifier_version": verifier_version.number, "example": example.pk,
        "proposal": proposal.pk, "curriculum": curriculum.pk, "experiment": experiment.pk,
        "run": run.pk, "upload": upload.pk, "rollout": rollout.pk, "checkpoint": checkpoint.pk, "evaluation": job.pk,
        "baseline": base.pk, "report": report.pk, "promotion": promotion.pk,
        "preflight": preflight.pk, "suite": suite.pk, "model": model.pk,
        "model_version": version.pk, "deployment": deployment.slug, "canary": canary.pk,
        "team": OWNING, "member": Membership.objects.get(user=users["viewer"]).pk,
        "token": accounts.create_token(admin, "admin's").token.pk,
        "audit": AuditEvent.objects.filter(team=team).values_list("pk", flat=True).first(),
    }  # fmt: skip
    return World(ids, tokens)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:  # type: ignore[no-untyped-def]
    """The objects, made once in a transaction that is rolled back after the module; each
    test's own savepoint (the ``db`` fixture) undoes what its request changed."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield build_world()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def call(world: World, persona: str, entry: Row) -> int:
    client = APIClient(raise_request_exception=False)
    secret = world.tokens[persona]
    if secret is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    url = entry.url.format(**world.ids)
    send = getattr(client, entry.method.lower())
    body = body_of(world, entry)
    response = send(url, body, format="json") if body is not None else send(url)
    if url.startswith("/api/v1/") and response.status_code != 204:
        kind = response.get("Content-Type", "")
        # Every status answers JSON; a report's export is a download of the format asked for.
        assert kind.startswith("application/json") or "/export/" in url, (url, response.status_code)
    return response.status_code


def body_of(world: World, entry: Row) -> dict[str, Any] | None:
    if entry.body is None:
        return None
    return {k: v.format(**world.ids) if isinstance(v, str) and "{" in v else v for k, v in entry.body.items()}


def cells() -> Iterator[Any]:
    for entry in MATRIX:
        for persona, expected in zip(PERSONAS, entry.expected, strict=True):
            label = f"{entry.method} {entry.url} as {persona}"
            yield pytest.param(entry, persona, expected, id=label)


@pytest.mark.parametrize(("entry", "persona", "expected"), cells())
def test_it_answers_each_persona_as_the_table_says(world, entry, persona, expected):
    assert call(world, persona, entry) == expected


# --- the table covers every route --------------------------------------------------------


FORMAT_SUFFIX = re.compile(r"\\\.\(\?P<format>\[a-z0-9\]\+\)/\?\$$")


def api_routes() -> set[tuple[str, str]]:
    """(method, route) of every view under /api/, each method its view serves."""
    found: set[tuple[str, str]] = set()

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            route = URLResolver._join_route(prefix, str(pattern.pattern))
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("api/"):
                for method in served_methods(pattern.callback):
                    found.add((method, canonical(route)))

    walk(get_resolver().url_patterns, "")
    return found


def served_methods(view: Any) -> set[str]:
    cls = getattr(view, "cls", None)
    if cls is None:
        return set()
    allowed = set(cls.http_method_names) - {"options", "head", "trace"}
    actions = getattr(view, "actions", None)
    names = set(actions) if actions else {m for m in allowed if hasattr(cls, m)}
    return {m.upper() for m in names & allowed}


def canonical(route: str) -> str:
    """DRF's DefaultRouter serves each route again with a ``.json`` suffix: the same view, the
    same checks; it counts as the route without the suffix."""
    route = FORMAT_SUFFIX.sub("/$", route)
    return route.replace("<drf_format_suffix:format>", "")


def test_it_has_a_row_for_every_api_route(world: World) -> None:
    covered = set()
    for entry in MATRIX:
        match = resolve(entry.url.format(**world.ids))
        covered.add((entry.method, canonical(match.route)))
    missing = sorted(api_routes() - covered)
    assert not missing, f"endpoints missing from MATRIX: {missing}"
    assert len(covered) == len(MATRIX), "two rows of MATRIX test the same endpoint"
