"""Deployments, serving and canaries through the API, with real replicas (the tiny model in
this process's threads, answering over HTTP) on the test database."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from experiments.models import ModelAlias
from serving.models import (
    Canary,
    CanaryState,
    Deployment,
    Replica,
    ReplicaRole,
    ReplicaState,
    ServedRequest,
)
from serving.services import routing
from tests.serving.serving_setup import Served, replica_thread
from training.serving import SIGNATURE_HEADER, sign

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
URL = "/api/v1/deployments/"


def fields(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def message(response) -> str:  # type: ignore[no-untyped-def]
    """The one message of a refusal (the API's error shape)."""
    (error,) = response.json()["errors"]
    return str(error["message"])


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    return Served(owner, tmp_path)


def deploy(api, served: Served, slug: str = "sorter") -> Deployment:  # type: ignore[no-untyped-def]
    body = {
        "name": "Sorter",
        "slug": slug,
        "registered_model": served.model.pk,
        "team": served.team.slug,
    }
    response = api.post(URL, body, format="json")
    assert response.status_code == 201, response.json()
    return Deployment.objects.get(slug=slug)


def production_replica(deployment: Deployment) -> Replica:
    return deployment.replicas.get(role=ReplicaRole.PRODUCTION, state=ReplicaState.STARTING)


def generate(api, slug: str, **body):  # type: ignore[no-untyped-def]
    return api.post(f"{URL}{slug}/generate/", body, format="json")


def health_of(replica: Replica) -> tuple[bool, int, int]:
    """The replica's health, asked as the platform asks: signed with the replica's secret."""
    signed = {SIGNATURE_HEADER: sign(replica.secret, "GET", "/health", b"")}
    request = urllib.request.Request(f"{replica.address}/health", headers=signed)
    with urllib.request.urlopen(request, timeout=5) as answer:
        body = json.loads(answer.read())
    return body["ready"], body["max_queue"], body["max_batch"]


def logged(request_id: str, timeout: float = 15) -> ServedRequest:
    deadline = time.monotonic() + timeout
    while True:
        row = ServedRequest.objects.filter(pk=request_id).first()
        if row is not None:
            return row
        assert time.monotonic() < deadline, f"request {request_id} was never logged"
        time.sleep(0.05)


def test_a_deployment_answers_logs_and_verifies_each_request(api, served) -> None:  # type: ignore[no-untyped-def]
    served.production(served.version(sft_steps=60, step=40))
    deployment = deploy(api, served)
    assert api.get(f"{URL}sorter/").json()["status"] == "starting"
    with replica_thread(production_replica(deployment)):
        assert api.get(f"{URL}sorter/").json()["status"] == "serving"
        (prompt, task), *_ = served.held_out(1)
        response = generate(api, "sorter", prompt=prompt, family="digits", task=task)
        assert response.status_code == 200, response.json()
        answer = response.json()
        assert answer["side"] == "production" and answer["version"]["label"] == "sorter v1"
        assert answer["verification"] == "pending" and answer["format_warnings"] == []
        row = logged(answer["id"])
        assert row.completion == answer["completion"] and row.status == "ok"
        assert row.passed is not None and row.verdict["verifier_version"] == served.verifier.pk
        assert row.latency_ms is not None and row.latency_ms > 0

        # Serving with a chat template the model never saw is answered, and flagged.
        response = generate(api, "sorter", prompt=prompt, format={"chat_template": "<user>{p}"})
        assert response.status_code == 200
        assert "chat format differs" in response.json()["format_warnings"][0]
        plain = logged(response.json()["id"])
        assert plain.passed is None and plain.format_warnings  # nothing named to verify

        listed = api.get(f"{URL}sorter/requests/").json()
        assert {r["id"] for r in listed["results"]} == {answer["id"], response.json()["id"]}

        # New queue and batch sizes reach the serving replica at its next heartbeat.
        changed = api.patch(f"{URL}sorter/", {"max_queue": 5, "max_batch": 2}, format="json")
        assert changed.status_code == 200
        replica = Replica.objects.get(deployment=deployment)
        deadline = time.monotonic() + 15
        while (health := health_of(replica))[1:] != (5, 2):
            assert time.monotonic() < deadline, health
            time.sleep(0.2)

        stopped = api.post(f"{URL}sorter/stop/").json()
        assert stopped["status"] == "stopped"
    replica = deployment.replicas.get()
    assert replica.state == ReplicaState.STOPPED
    refused = generate(api, "sorter", prompt=prompt)
    assert refused.status_code == 409 and "is stopped" in message(refused)


def test_bad_requests_name_the_field_and_no_replica_is_a_503(api, served) -> None:  # type: ignore[no-untyped-def]
    served.production(served.version(sft_steps=1, step=40))
    deploy(api, served)
    assert fields(generate(api, "sorter")) == {"prompt": "a non-empty string is required"}
    assert "longer than" in fields(generate(api, "sorter", prompt="x" * 30_000))["prompt"]
    assert "task" in fields(generate(api, "sorter", prompt="p", family="digits", task="nope"))
    assert "trained on" in fields(generate(api, "sorter", prompt="p", family="other"))["family"]
    assert "family" in fields(generate(api, "sorter", prompt="p", expected={"answer": "1"}))
    missing = generate(api, "nowhere", prompt="p")
    assert missing.status_code == 404 and missing.json()["errors"]

    starting = generate(api, "sorter", prompt="sort 21=")  # no worker has taken the replica
    assert starting.status_code == 503 and "starting" in message(starting)
    assert starting.headers["Retry-After"] == "5"

    # A replica whose worker died: its address answers nothing.
    Replica.objects.update(state=ReplicaState.READY, address="http://127.0.0.1:9")
    routing.forget(Deployment.objects.get().pk)
    gone = generate(api, "sorter", prompt="sort 21=")
    assert gone.status_code == 503 and "worker is gone" in message(gone)
    assert gone.json()["id"]  # the failure is in the log under this id
    assert Replica.objects.get().state == ReplicaState.FAILED
    assert ServedRequest.objects.filter(status="error").count() == 2  # both failures logged
    assert api.get(f"{URL}sorter/").json()["status"] == "down"


def test_a_model_without_production_is_not_deployed(api, served) -> None:  # type: ignore[no-untyped-def]
    served.version(sft_steps=1, step=40, promoted=False)
    response = api.post(
        URL,
        {"name": "S", "slug": "s", "registered_model": served.model.pk, "team": served.team.slug},
        format="json",
    )
    assert response.status_code == 409
    assert "no production alias" in fields(response)["registered_model"]


def canary(api, slug: str, candidate: int, **body):  # type: ignore[no-untyped-def]
    response = api.post(f"{URL}{slug}/canary/", {"candidate": candidate, **body}, format="json")
    assert response.status_code == 201, response.json()
    return Canary.objects.get(pk=response.json()["id"])


def drive(api, served: Served, canary_: Canary, until, n: int = 400) -> Canary:  # type: ignore[no-untyped-def]
    """Send held-out tasks (each its own key) until ``until(canary)`` or ``n`` requests."""
    tasks = served.held_out(60)
    for i in range(n):
        prompt, task = tasks[i % len(tasks)]
        response = generate(api, "sorter", prompt=prompt, family="digits", task=task, key=f"u{i}")
        assert response.status_code == 200, response.json()
        canary_.refresh_from_db()
        if until(canary_):
            return canary_
    time.sleep(1.5)  # the last verdicts, and the analysis they wake
    canary_.refresh_from_db()
    return canary_


def settled(quiet_s: float = 1.0, limit_s: float = 20.0) -> None:
    """Wait until no served request has been logged for ``quiet_s`` (shadow copies are answered
    after their callers are, and each can wake the canary's analysis)."""
    deadline, count = time.monotonic() + limit_s, -1
    while time.monotonic() < deadline:
        now = ServedRequest.objects.count()
        if now == count:
            return
        count = now
        time.sleep(quiet_s)


def test_a_worse_candidate_is_rolled_back_by_its_pass_rate(api, served) -> None:  # type: ignore[no-untyped-def]
    served.production(served.version(sft_steps=60, step=40))
    worse = served.version(sft_steps=1, step=80, promoted=False)
    deployment = deploy(api, served)
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", worse.pk, steps=[50], guardrails={"min_samples": 10})
        with replica_thread(started.replica):
            ended = drive(api, served, started, lambda c: c.state != CanaryState.RUNNING)
            assert ended.state == CanaryState.ROLLED_BACK, (ended.state, ended.reason)
            assert "pass rate" in ended.reason
            assert ended.history[-1]["outcome"] == "failed"
            # All traffic is production's again.
            answer = generate(api, "sorter", prompt="sort 12=", key="anyone").json()
            assert answer["side"] == "production"
    assert ModelAlias.objects.get(alias="production").version.number == 1
    report = api.get(f"/api/v1/canaries/{ended.pk}/report/").json()
    assert report["state"] == "rolled_back" and report["history"][0]["analysis"]["checks"]


def test_a_better_candidate_is_promoted_step_by_step(api, served) -> None:  # type: ignore[no-untyped-def]
    served.production(served.version(sft_steps=20, step=40))
    better = served.version(sft_steps=60, step=80)
    deployment = deploy(api, served)
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", better.pk, steps=[30, 60], guardrails={"min_samples": 10})
        with replica_thread(started.replica):
            ended = drive(api, served, started, lambda c: c.state != CanaryState.RUNNING)
            assert ended.state == CanaryState.PROMOTED, (ended.state, ended.reason)
            assert [h["share"] for h in ended.history] == [30, 60]
            assert all(h["outcome"] == "successful" for h in ended.history)
            answer = generate(api, "sorter", prompt="sort 12=", key="anyone").json()
            assert answer["version"]["label"] == "sorter v2"  # the candidate serves production
            # ...and its answers are logged as production's (the next canary compares them).
            assert logged(answer["id"]).side == "production"
    deployment.refresh_from_db()
    assert deployment.version_id == better.pk
    assert ModelAlias.objects.get(alias="production").version_id == better.pk


def test_an_undecided_step_waits_for_a_person_and_a_lost_candidate_pauses(api, served) -> None:  # type: ignore[no-untyped-def]
    served.production(served.version(sft_steps=60, step=40))
    same = served.version(sft_steps=60, step=80, promoted=False)
    deployment = deploy(api, served)
    with replica_thread(production_replica(deployment)):
        rails = {"min_samples": 5, "max_samples": 12}
        started = canary(api, "sorter", same.pk, mode="shadow", guardrails=rails)
        with replica_thread(started.replica):
            waiting = drive(api, served, started, lambda c: c.state != CanaryState.RUNNING, n=80)
            assert waiting.state == CanaryState.AWAITING_DECISION, (waiting.state, waiting.reason)
            assert "inconclusive" in waiting.reason
            # In shadow mode the caller always gets production's answer.
            sides = set(ServedRequest.objects.filter(shadow=False).values_list("side", flat=True))
            assert sides == {"production"}
            assert ServedRequest.objects.filter(shadow=True, side="candidate").exists()
            settled()  # shadow copies still in flight land before the guardrails grow
            extended = api.post(
                f"/api/v1/canaries/{started.pk}/decide/", {"decision": "extend"}, format="json"
            ).json()
            assert extended["state"] == "running" and extended["guardrails"]["max_samples"] == 24
        # The candidate's worker is gone: the next request pauses the canary, production answers.
        Replica.objects.filter(pk=started.replica_id).update(
            state=ReplicaState.READY, address="http://127.0.0.1:9"
        )
        routing.forget(deployment.pk)
        answer = generate(api, "sorter", prompt="sort 31=", key="k")
        assert answer.status_code == 200 and answer.json()["side"] == "production"
        paused = Canary.objects.get(pk=started.pk)
        assert paused.state == CanaryState.PAUSED and "worker is gone" in paused.reason
        rolled = api.post(
            f"/api/v1/canaries/{started.pk}/decide/",
            {"decision": "rollback", "reason": "not worth it"}, format="json",
        )  # fmt: skip
        assert rolled.status_code == 200 and rolled.json()["state"] == "rolled_back"
