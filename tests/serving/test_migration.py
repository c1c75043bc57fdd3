"""Upgrading a database from before the serving app: every deployment, replica, canary and
served request is still there, and read through the serving app's models."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db.migrations.executor import MigrationExecutor

from crucible.accounts.models import AuditEvent
from experiments.models import ModelVersion, RegisteredModel
from serving.models import Canary, CanaryState, Deployment, Replica, ServedRequest
from tests.migration_setup import migrated_back_to

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

LAST_WITHOUT_SERVING = ("experiments", "0015_metric_point_replaces")
BEFORE = [LAST_WITHOUT_SERVING, ("serving", None)]
"""The schema as it was before the serving app: its models still in experiments' state."""
REQUEST_ID = uuid.UUID("6f1c1d2e-0000-4000-8000-000000000001")


@pytest.fixture
def executor():  # type: ignore[no-untyped-def]
    with migrated_back_to(BEFORE) as executor:
        yield executor


def apps_before(executor: MigrationExecutor):  # type: ignore[no-untyped-def]
    """The models as they were before the serving app (every other app at its newest)."""
    others = [
        n for n in executor.loader.graph.leaf_nodes() if n[0] not in {"experiments", "serving"}
    ]
    return executor.loader.project_state([*others, LAST_WITHOUT_SERVING]).apps


def old_rows(apps) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """A deployment serving version 1 with a canary of version 2 and a request each side,
    written through the models as they were (in the experiments app)."""
    user = apps.get_model("auth", "User").objects.create(username="alice")
    team = apps.get_model("accounts", "Team").objects.create(name="Team", slug="team")
    model = apps.get_model("experiments", "RegisteredModel").objects.create(
        team=team, name="sorter", created_by=user
    )
    versions = apps.get_model("experiments", "ModelVersion")
    v1 = versions.objects.create(model=model, number=1, base_model="tiny")
    v2 = versions.objects.create(model=model, number=2, base_model="tiny")
    deployment = apps.get_model("experiments", "Deployment").objects.create(
        team=team, name="Sorter", slug="sorter", registered_model=model, version=v1,
        served_format={"chat_template": False}, max_new_tokens=24, created_by=user,
    )  # fmt: skip
    replicas = apps.get_model("experiments", "Replica")
    production = replicas.objects.create(
        deployment=deployment, version=v1, role="production", state="ready",
        address="http://10.0.0.5:9000", secret="s" * 43, worker="serve@a",
    )  # fmt: skip
    candidate = replicas.objects.create(
        deployment=deployment, version=v2, role="candidate", state="starting", secret="c" * 43
    )
    canary = apps.get_model("experiments", "Canary").objects.create(
        deployment=deployment, production=v1, candidate=v2, replica=candidate, mode="split",
        steps=[5, 25, 50], step=1, guardrails={"max_samples": 400}, reason="step 2",
        analysis={"outcome": "continue"}, history=[{"step": 0, "outcome": "successful"}],
        series=[{"step": 0, "production": 0.5}], revision=7, shadow_dropped=2, created_by=user,
    )  # fmt: skip
    served = apps.get_model("experiments", "ServedRequest")
    served.objects.create(
        id=REQUEST_ID, deployment=deployment, canary=canary, step=1, version=v2,
        side="candidate", key="user-1", prompt="sort 3 1 2", completion="1 2 3", status="ok",
        latency_ms=12.5, output_tokens=3, family="sort", task="t1", passed=True,
        judged_against="pool", reward=1.0, verdict={"layers": []}, format_warnings=["x"],
    )  # fmt: skip
    served.objects.create(
        deployment=deployment, canary=canary, step=1, version=v1, side="production",
        prompt="sort 2 1", status="error", error="timed out",
    )  # fmt: skip
    apps.get_model("accounts", "AuditEvent").objects.create(
        actor=user, team=team, action="deployment.created",
        target_type="experiments.deployment", target_id=str(deployment.pk), target_label="x",
    )  # fmt: skip
    content_type = apps.get_model("contenttypes", "ContentType")
    kind, _ = content_type.objects.get_or_create(app_label="experiments", model="deployment")
    return {
        "deployment": deployment.pk, "production": production.pk, "candidate": candidate.pk,
        "canary": canary.pk, "v1": v1.pk, "v2": v2.pk, "model": model.pk, "kind": kind.pk,
    }  # fmt: skip


def test_it_keeps_every_serving_row_when_the_models_move_to_the_serving_app(executor):
    ids = old_rows(apps_before(executor))

    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()

    deployment = Deployment.objects.get(pk=ids["deployment"])
    assert deployment.slug == "sorter" and deployment.max_new_tokens == 24
    assert deployment.served_format == {"chat_template": False}
    assert deployment.version_id == ids["v1"] and deployment.created_by.username == "alice"
    model = RegisteredModel.objects.get(pk=ids["model"])
    assert list(model.deployments.all()) == [deployment]
    production = deployment.replicas.get(pk=ids["production"])
    assert production.role == "production" and production.state == "ready"
    assert production.address == "http://10.0.0.5:9000" and production.secret == "s" * 43
    assert Replica.objects.get(pk=ids["candidate"]).version_id == ids["v2"]
    canary = Canary.objects.select_related("replica", "candidate").get(pk=ids["canary"])
    assert canary.deployment == deployment and canary.state == CanaryState.RUNNING
    assert canary.replica.pk == ids["candidate"] and canary.share == 25
    assert canary.history == [{"step": 0, "outcome": "successful"}]
    assert canary.series == [{"step": 0, "production": 0.5}]
    assert canary.revision == 7 and canary.shadow_dropped == 2
    assert list(ModelVersion.objects.get(pk=ids["v2"]).canaries.all()) == [canary]
    answered = ServedRequest.objects.get(pk=REQUEST_ID)
    assert answered.canary == canary and answered.side == "candidate"
    assert answered.passed is True and answered.judged_against == "pool"
    assert answered.verdict == {"layers": []} and answered.format_warnings == ["x"]
    assert canary.requests.count() == 2 and deployment.requests.count() == 2
    assert ServedRequest.objects.get(status="error").error == "timed out"
    # Permissions and past audit events name the models where they now live.
    assert ContentType.objects.get_for_model(Deployment).pk == ids["kind"]
    assert AuditEvent.objects.get(action="deployment.created").target_type == "serving.deployment"


def test_it_moves_them_back_when_the_serving_app_is_unmigrated(executor):
    ids = old_rows(apps_before(executor))
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    executor.loader.build_graph()
    executor.migrate(BEFORE)

    old = apps_before(executor)
    assert old.get_model("experiments", "Deployment").objects.get(pk=ids["deployment"]).slug == (
        "sorter"
    )
    assert old.get_model("experiments", "ServedRequest").objects.count() == 2
    assert old.get_model("accounts", "AuditEvent").objects.get().target_type == (
        "experiments.deployment"
    )
