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
from serving.models import Replica
from tests.api_world import seed_world

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# Per operation, on top of schemathesis' coverage cases (boundaries, missing and unexpected
# fields, wrong methods), which stay whole. At 12 the 159 operations took 464 s of the suite,
# a sixth of it, so each now gets 8 random bodies (their seed fixed by `derandomize`).
EXAMPLES_PER_OPERATION = 8
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
    seeded = seed_world(owner, team, "fuzz")
    Replica.objects.create(
        deployment=seeded.deployment, version=seeded.production, role="production",
        state="ready", address=model_server, heartbeat_at=timezone.now(),
    )  # fmt: skip
    issued = accounts.create_token(owner, "fuzz")
    members = Membership.objects.get(user=owner, team=team).id
    return {
        "headers": {"Authorization": f"Bearer {issued.secret}"},
        "ids": {**seeded.ids, "tokens": issued.token.id, "members": members},
        "params": seeded.params,
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
