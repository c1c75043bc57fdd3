"""A serving replica's worker time counts in its deployment's team's usage as ``serving`` on
the ``serve`` queue, while it serves and at its end, and in no other team's."""

from __future__ import annotations

import time

import pytest

from experiments.models import Usage
from serving.services import replicas
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import deploy, production_replica

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def serving_seconds(slug: str) -> float:
    rows = Usage.objects.filter(team__slug=slug, kind="serving", queue="serve")
    return sum(rows.values_list("worker_seconds", flat=True))


def test_a_replicas_run_adds_serving_hours_to_its_team(
    api, owner, team, outsider, tmp_path, monkeypatch
):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(replicas, "USAGE_CHARGE_S", 0.0)  # charge at every beat
    served = Served(owner, tmp_path)
    served.production(served.version(sft_steps=1, step=40))
    deployment = deploy(api, served)
    with replica_thread(production_replica(deployment)):
        deadline = time.monotonic() + 3 * replicas.HEARTBEAT_S + 5
        while serving_seconds("reasoning") == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        while_serving = serving_seconds("reasoning")
        assert while_serving > 0, "nothing charged while the replica served"
    assert serving_seconds("reasoning") > while_serving  # the rest, at its end
    assert not Usage.objects.filter(team__slug="elsewhere").exists()
