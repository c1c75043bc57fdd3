"""Every operation of the OpenAPI schema, fuzzed in-process with schemathesis.

Each operation is one test on Django's test database (rolled back after it), signed in with
a bearer token of a team's admin who already has a family with a version, a verifier with a
version and a labelled example, a curriculum, an evaluation suite and a registered model with
a version of a checkpoint, so that detail routes are reachable: path parameters are pointed
at those objects rather than at random ids, which would only meet 404s.
The checks: never a 5xx, and every answer is documented (status, JSON content type, body).
No operation is left out: logout only ends a session (this client signs in with a token), an
upload gets generated multipart bodies, and grading jobs are queued only on commit, which the
test's transaction never reaches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import hypothesis
import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from crucible.accounts import services as accounts
from crucible.accounts.models import Membership
from experiments.models import Checkpoint, CheckpointUpload, PreflightReport, Rollout, Worker
from experiments.services import evaluation, experiments, registry, reports, runs, suites
from serving.models import Canary, Deployment, Replica
from tasks_app.services import curricula, example_proposals, pools, verifiers
from tests.experiments.reports_setup import finished_job

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# Per operation, on top of schemathesis' coverage cases (boundaries, missing and unexpected
# fields, wrong methods): about 60 operations then take one to three minutes on two cores.
EXAMPLES_PER_OPERATION = 12
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.app = get_wsgi_application()


@pytest.fixture
def in_test_transaction() -> Iterator[None]:
    """Requests share the test's connection, as with Django's test client.

    Django closes a connection at the end of each request; inside the test's transaction that
    would drop the fixtures' rows, so the closing is held off as Django's own test client does.
    """
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield
    finally:
        for signal in (signals.request_started, signals.request_finished):
            signal.connect(close_old_connections)


@pytest.fixture(scope="module")
def model_server() -> Iterator[str]:
    """A real model server (an untrained tiny model) for the deployment's replica to be."""
    from training import digits
    from training.decode import DecodeGenerator
    from training.models import build_tiny_model, train_tokenizer
    from training.serving import BatchingServer, ServingHTTP

    tokenizer = train_tokenizer(digits.corpus(200))
    model = build_tiny_model(tokenizer, layers=1, width=32, seed=0)
    server = BatchingServer(DecodeGenerator(model, tokenizer), max_batch=4, max_queue=64)
    http = ServingHTTP(server)
    server.start()
    http.start()
    yield http.address
    http.stop()
    server.stop()


@pytest.fixture
def world(owner, team, in_test_transaction, model_server) -> dict[str, Any]:  # type: ignore[no-untyped-def]
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
        name="celery@fuzz",
        queues=["gpu"],
        loadable=[
            {"name": "tiny", "path": "tiny", "builtin": True, "parameters": 1, "ready": True}
        ],
    )
    pinned = {"pool_version": version.id, "verifier_version": verifier.latest_version().id}
    experiment = experiments.create_experiment(
        owner, team, name="Sort", config={"curriculum": {"families": [pinned]}, "model": "tiny"}
    )
    run = runs.launch(owner, experiment)  # queued on commit, which the test never reaches
    rollout = Rollout.objects.create(
        run=run, step=1, group=0, sample=0, family="digits", prompt="abc", completion="cba"
    )
    preflight = PreflightReport.objects.create(
        team=team,
        experiment=experiment,
        config=experiment.config,
        config_hash=experiment.config_hash,
        tasks_per_level=4,
    )
    verdict = example_proposals.Verdict(pinned["verifier_version"], passed=False)
    proposal = example_proposals.propose(
        owner,
        team,
        verdict,
        response="ab c",
        expected={"answer": "abc"},
        source=example_proposals.Source("rollout:fuzz"),
    )
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
    Replica.objects.create(
        deployment=deployment, version=model_version, role="production", state="ready",
        address=model_server, heartbeat_at=timezone.now(),
    )  # fmt: skip
    canary = Canary.objects.create(
        deployment=deployment, production=model_version, candidate=candidate_version,
        mode="split", steps=[5, 25, 50], guardrails={},
    )  # fmt: skip
    issued = accounts.create_token(owner, "fuzz")
    return {
        "headers": {"Authorization": f"Bearer {issued.secret}"},
        "ids": {
            "families": family.id,
            "pool-versions": version.id,
            "verifiers": verifier.id,
            "curricula": curriculum.id,
            "tokens": issued.token.id,
            "audit": team.audit.first().id,
            "members": Membership.objects.get(user=owner, team=team).id,
            "experiments": experiment.id,
            "runs": run.id,
            "checkpoints": checkpoint.id,
            "preflights": preflight.id,
            "example-proposals": proposal.id,
            "evaluations": candidate.id,
            "reports": report.id,
            "evaluation-suites": suite.id,
            "registered-models": registered.id,
            "model-versions": model_version.id,
            "canaries": canary.id,
        },
        "params": {
            "slug": team.slug,
            "team_slug": team.slug,
            "number": 1,
            "example_id": example.id,
            "rollout_id": rollout.id,
            "run_id": run.id,
            "upload_id": upload.id,
        },
    }


def existing(path: str, world: dict[str, Any]) -> dict[str, Any]:
    """Path parameters naming the world's objects: ``id`` by the collection it follows."""
    params = dict(world["params"])
    match = re.search(r"/([\w-]+)/\{id\}", path)
    if match:
        params["id"] = world["ids"][match.group(1)]
    return params


def point_at_world(case, world: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """Aim the references in a case at real objects, so that writes can get past the lookups
    (unknown ids and slugs are covered by their own tests)."""
    for name, value in existing(case.operation.path, world).items():
        if name in (case.path_parameters or {}):
            case.path_parameters[name] = value
    if isinstance(case.body, dict):
        for name, value in BODY_REFERENCES.items():
            if isinstance(case.body.get(name), str):
                case.body[name] = value


# Body fields that name a team or a registered kind (of family, or of environment).
BODY_REFERENCES = {
    "team": "reasoning",
    "kind": "string-ops",
    "family_kind": "arithmetic",
    "environment": "python-tool",
}


@schema.parametrize()
@hypothesis.settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    database=None,
    # Generous: only a hang should trip it, not a slow shared machine.
    deadline=timedelta(seconds=20),
    suppress_health_check=list(hypothesis.HealthCheck),
)
def test_it_answers_every_operation_as_documented_without_a_server_error(case, world):
    point_at_world(case, world)
    # The checks raise with the case to reproduce; the assertions say the rule plainly.
    response = case.call_and_validate(headers=world["headers"], checks=CHECKS)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:  # refusals are JSON with the one error shape
        assert response.headers["content-type"][0].startswith("application/json")
        assert isinstance(response.json()["errors"], list), response.text
