"""One seeded API world: a team with an object of every kind the API's paths name, so that an
operation's ``{id}`` and named path parameters reach real objects instead of meeting 404s.

The in-process fuzz test (``tests/crucible/test_api_fuzz.py``) and the live conformance run
(``scripts/schema_conformance.py``) both aim their cases at it. Each adds what only it needs:
the fuzz test a replica behind the deployment, the conformance run its viewer and a spare token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from experiments.models import Checkpoint, CheckpointUpload, PreflightReport, Rollout, Worker
from experiments.models.registry import ModelVersion
from experiments.services import evaluation, experiments, registry, reports, runs, suites
from serving.models import Canary, Deployment
from tasks_app.services import curricula, example_proposals, pools, verifiers
from tests.experiments.reports_setup import finished_job


@dataclass
class World:
    ids: dict[str, int]
    """Collection name (as in ``/families/{id}/``) -> the seeded object's id."""
    params: dict[str, Any]
    """Named path parameters (``slug``, ``run_id``...) -> a seeded value."""
    deployment: Deployment
    production: ModelVersion


def seed_world(owner, team, label: str) -> World:  # type: ignore[no-untyped-def]
    """The objects, created by ``owner`` (the team's admin); ``label`` names the worker and
    the example proposal's source, so that two worlds never collide."""
    family = pools.create_family(owner, team, name="Digits", slug="digits", kind="string-ops")
    tasks = pools.generated_tasks(family, {1: 30, 2: 30}, seed=1)
    version, _ = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )
    verifier = verifiers.create_verifier(
        owner, team, name="Exact", slug="exact", family_kind="string-ops"
    )
    example = verifiers.add_example(
        owner, verifier, response="abc", expected={"answer": "abc"}, label="good"
    )
    curriculum = curricula.create_curriculum(
        owner, team, name="Warm", slug="warm", config={"families": [{"version": version.id}]}
    )
    Worker.objects.create(
        name=f"celery@{label}",
        queues=["gpu"],
        loadable=[
            {"name": "tiny", "path": "tiny", "builtin": True, "parameters": 1, "ready": True}
        ],
    )
    pinned = {"pool_version": version.id, "verifier_version": verifier.latest_version().id}
    experiment = experiments.create_experiment(
        owner, team, name="Sort", config={"curriculum": {"families": [pinned]}, "model": "tiny"}
    )
    run = runs.launch(owner, experiment)  # queued on commit, which a test may never reach
    rollout = Rollout.objects.create(
        run=run, step=1, group=0, sample=0, family="digits", prompt="abc", completion="cba"
    )
    preflight = PreflightReport.objects.create(
        team=team, experiment=experiment, config=experiment.config,
        config_hash=experiment.config_hash, tasks_per_level=4,
    )  # fmt: skip
    proposal = example_proposals.propose(
        owner, team, example_proposals.Verdict(pinned["verifier_version"], passed=False),
        response="ab c", expected={"answer": "abc"},
        source=example_proposals.Source(f"rollout:{label}"),
    )  # fmt: skip
    candidate = finished_job(owner, team, [4, 3, 2, 1])
    report = reports.create(owner, team, candidate, finished_job(owner, team, [2, 2, 2, 2], "base"))
    suite = suites.create_suite(
        owner, team, name="Core", families=[pinned], settings_=evaluation.Settings()
    )
    registered = registry.create_model(owner, team, name="Sorter")
    checkpoint = Checkpoint.objects.create(run=run, step=1, path="/nonexistent/step-000001")
    upload = CheckpointUpload.objects.create(
        run=run, step=3, files=[{"path": "config.json", "size": 2, "sha256": "0" * 64}],
        total_bytes=2,
    )  # fmt: skip
    model_version = registry.register(owner, registered, checkpoint=checkpoint.id)
    later = Checkpoint.objects.create(run=run, step=2, path="/nonexistent/step-000002")
    candidate_version = registry.register(owner, registered, checkpoint=later.id)
    deployment = Deployment.objects.create(
        team=team, name="Sorter", slug=team.slug, registered_model=registered,
        version=model_version,
    )  # fmt: skip
    canary = Canary.objects.create(
        deployment=deployment, production=model_version, candidate=candidate_version,
        mode="split", steps=[5, 25, 50], guardrails={},
    )  # fmt: skip
    return World(
        ids={
            "families": family.id, "pool-versions": version.id, "verifiers": verifier.id,
            "curricula": curriculum.id, "audit": team.audit.first().id,
            "experiments": experiment.id, "runs": run.id, "checkpoints": checkpoint.id,
            "preflights": preflight.id, "example-proposals": proposal.id,
            "evaluations": candidate.id, "reports": report.id, "evaluation-suites": suite.id,
            "registered-models": registered.id, "model-versions": model_version.id,
            "canaries": canary.id,
        },
        params={
            "slug": team.slug, "team_slug": team.slug, "number": 1, "example_id": example.id,
            "rollout_id": rollout.id, "run_id": run.id, "upload_id": upload.id,
        },
        deployment=deployment,
        production=model_version,
    )  # fmt: skip
