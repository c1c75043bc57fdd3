"""Deployments and canaries refuse bad input with the field and the reason, and the canary's
websocket streams it as it changes (no replicas run here: nothing is generated)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from crucible.accounts import services as accounts
from crucible.asgi import application
from experiments.models import ModelVersion
from serving.canary_analysis import Guardrails, answers_needed
from serving.models import Canary, CanaryState, Deployment, Replica, ReplicaState, ServedRequest
from serving.services import canaries, deployments, routing
from tests.serving.serving_setup import Served
from tests.websockets import close_code

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/api/v1/deployments/"
ORIGIN = [(b"origin", b"http://127.0.0.1:8000")]


def fields(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {e["field"]: e["message"] for e in response.json()["errors"]}


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    made = Served(owner, tmp_path)
    made.production(made.version(sft_steps=1, step=40))
    return made


@pytest.fixture
def deployment(owner, team, served) -> Deployment:  # type: ignore[no-untyped-def]
    return deployments.create(
        owner, team, name="Sorter", slug="sorter", registered_model=served.model
    )


def test_the_schema_states_a_deployments_limits_and_a_setting_past_them_is_refused(  # type: ignore[no-untyped-def]
    api, deployment
) -> None:
    schemas = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    for name in ("DeploymentWriteRequest", "PatchedDeploymentPatchRequest", "ServePromptRequest"):
        properties = schemas[name]["properties"]
        for key, (low, high) in deployments.LIMITS.items():
            if key in properties:
                assert (properties[key]["minimum"], properties[key]["maximum"]) == (low, high)
    assert schemas["ServePromptRequest"]["properties"]["key"]["maxLength"] == 200
    for key, value in (("max_new_tokens", 0), ("max_batch", 257), ("timeout_s", 0.1)):
        refused = api.patch(f"{URL}sorter/", {key: value}, format="json")
        assert refused.status_code == 400 and "between" in fields(refused)[key], refused.content
    assert api.patch(f"{URL}sorter/", {"max_batch": 256}, format="json").status_code == 200


def test_a_deployment_refuses_bad_settings_and_a_taken_slug(api, team, served, deployment) -> None:  # type: ignore[no-untyped-def]
    body = {
        "team": team.slug,
        "name": "Other",
        "slug": "sorter",
        "registered_model": served.model.pk,
    }
    assert "already exists" in fields(api.post(URL, body, format="json"))["slug"]
    body |= {"slug": "other", "temperature": "hot"}
    assert "valid number" in fields(api.post(URL, body, format="json"))["temperature"]
    body |= {"temperature": 0.0, "timeout_s": 0, "max_queue": 0}
    refused = fields(api.post(URL, body, format="json"))
    assert set(refused) == {"timeout_s", "max_queue"}
    assert "between" in refused["timeout_s"]
    body = {"team": team.slug, "name": "X", "slug": "x", "registered_model": 10_000}
    assert (
        "no such registered model" in fields(api.post(URL, body, format="json"))["registered_model"]
    )
    changed = api.patch(f"{URL}sorter/", {"max_new_tokens": 24, "name": "Sorter 2"}, format="json")
    assert changed.status_code == 200 and changed.json()["max_new_tokens"] == 24
    bad_format = api.patch(f"{URL}sorter/", {"served_format": {"color": "red"}}, format="json")
    assert "unknown keys" in fields(bad_format)["served_format"]
    # A serving deployment is not deleted; a stopped one is, with its log.
    assert api.delete(f"{URL}sorter/").status_code == 409
    assert api.post(f"{URL}sorter/stop/").json()["status"] == "stopped"
    assert api.delete(f"{URL}sorter/").status_code == 204
    assert not Deployment.objects.exists()


def test_a_canary_refuses_what_it_cannot_judge(api, owner, team, served, deployment) -> None:  # type: ignore[no-untyped-def]
    candidate = served.version(sft_steps=1, step=80, promoted=False)

    def start(**body):  # type: ignore[no-untyped-def]
        return api.post(f"{URL}sorter/canary/", {"candidate": candidate.pk, **body}, format="json")

    assert "already serving" in fields(start(candidate=deployment.version_id))["candidate"]
    assert "does not exist" in fields(start(candidate=10_000))["candidate"]
    other = ModelVersion.objects.create(
        model=accounts_model(owner, team), number=1, base_model="tiny-digit-sort"
    )
    assert "deployment's model" in fields(start(candidate=other.pk))["candidate"]
    assert "more traffic than the last" in fields(start(steps=[50, 25]))["steps[1]"]
    assert "whole percent" in fields(start(steps=[5, 150]))["steps[1]"]
    assert (
        "between 0 and 1"
        in fields(start(guardrails={"max_pass_drop": 2}))["guardrails.max_pass_drop"]
    )
    assert "not a known guardrail" in fields(start(guardrails={"speed": 1}))["guardrails.speed"]
    assert not Canary.objects.exists()  # nothing half-made

    made = start(steps=[10, 50], guardrails={"min_samples": 20})
    assert made.status_code == 201, made.json()
    body = made.json()
    assert (body["state"], body["share"], body["guardrails"]["min_samples"]) == ("running", 10, 20)
    assert Replica.objects.filter(role="candidate", version=candidate).exists()
    second = start()
    assert second.status_code == 409 and "already has a canary" in fields(second)["deployment"]

    canary_id = body["id"]
    paused = api.post(f"/api/v1/canaries/{canary_id}/pause/", {"reason": "lunch"}, format="json")
    assert (paused.json()["state"], paused.json()["reason"]) == ("paused", "lunch")
    not_waiting = api.post(f"/api/v1/canaries/{canary_id}/decide/", {"decision": "proceed"})
    assert not_waiting.status_code == 409 and "not waiting" in fields(not_waiting)["decision"]
    resumed = api.post(f"/api/v1/canaries/{canary_id}/resume/")
    assert resumed.json()["state"] == "running"
    rolled = api.post(f"/api/v1/canaries/{canary_id}/decide/", {"decision": "rollback"})
    assert rolled.json()["state"] == "rolled_back"
    assert Replica.objects.get(role="candidate").state == "stopped"  # it never started
    report = api.get(f"/api/v1/canaries/{canary_id}/report/").json()
    assert report["history"][-1]["outcome"] == "rollback"
    assert report["history"][-1]["decided_by"] == "owner"


def accounts_model(owner, team):  # type: ignore[no-untyped-def]
    from experiments.services import registry

    return registry.create_model(owner, team, name="another")


@pytest.fixture
def in_memory_layer(settings):  # type: ignore[no-untyped-def]
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


def test_the_canary_socket_streams_each_change_and_turns_outsiders_away(
    owner, team, outsider, served, deployment, in_memory_layer
) -> None:  # type: ignore[no-untyped-def]
    candidate = served.version(sft_steps=1, step=80, promoted=False)
    canary = canaries.start(owner, deployment, candidate=candidate.pk, steps=[20, 40])
    mine = accounts.create_token(owner, "ws").secret
    theirs = accounts.create_token(outsider, "ws").secret

    async def watch() -> tuple[dict, dict, int]:
        socket = WebsocketCommunicator(
            application, f"/ws/canaries/{canary.pk}/?token={mine}", headers=ORIGIN
        )
        assert (await socket.connect(timeout=5))[0]
        assert (await socket.receive_json_from(timeout=5))["type"] == "hello"
        first = await socket.receive_json_from(timeout=5)
        await database_sync_to_async(canaries.pause)(canary, "checking the socket")
        second = await socket.receive_json_from(timeout=5)
        await socket.disconnect()
        stranger = WebsocketCommunicator(
            application, f"/ws/canaries/{canary.pk}/?token={theirs}", headers=ORIGIN
        )
        await stranger.connect(timeout=5)
        return first, second, await close_code(stranger)

    first, second, code = async_to_sync(watch)()
    assert first["type"] == "canary" and first["canary"]["state"] == "running"
    assert first["canary"]["steps"] == [20, 40]
    assert second["canary"]["state"] == CanaryState.PAUSED
    assert second["canary"]["reason"] == "checking the socket"
    assert second["canary"]["revision"] > first["canary"]["revision"]
    assert code == 4403


class _FakeReplica(BaseHTTPRequestHandler):
    """A replica's HTTP side: production answers, the candidate's queue is always full."""

    protocol_version = "HTTP/1.1"
    full = False

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.full:
            raw, status = b'{"detail": "the queue is full"}', 503
        else:
            raw, status = b'{"completion": "1 2", "output_tokens": 2}', 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def fake_replica(replica: Replica, *, full: bool) -> Iterator[None]:
    handler = type("Handler", (_FakeReplica,), {"full": full})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    Replica.objects.filter(pk=replica.pk).update(
        state=ReplicaState.READY,
        address=f"http://127.0.0.1:{httpd.server_address[1]}",
        heartbeat_at=timezone.now(),
    )
    try:
        yield
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_shadow_copies_the_candidate_refuses_are_counted(api, owner, served, deployment) -> None:  # type: ignore[no-untyped-def]
    candidate = served.version(sft_steps=1, step=80, promoted=False)
    production = Replica.objects.get(deployment=deployment, role="production")
    with fake_replica(production, full=False):
        canary = canaries.start(owner, deployment, candidate=candidate.pk, mode="shadow")
        with fake_replica(Replica.objects.get(pk=canary.replica_id), full=True):
            routing.forget(deployment.pk)
            for i in range(3):
                answer = api.post(
                    f"{URL}sorter/generate/", {"prompt": "sort 21=", "key": f"k{i}"}, format="json"
                )
                assert answer.status_code == 200 and answer.json()["side"] == "production"
    shown = api.get(f"/api/v1/canaries/{canary.pk}/").json()
    assert shown["shadow_dropped"] == 3 and shown["state"] == "running"
    assert api.get(f"/api/v1/canaries/{canary.pk}/report/").json()["shadow_dropped"] == 3


def test_a_route_changed_by_another_process_is_read_again_at_once(  # type: ignore[no-untyped-def]
    owner, served, deployment, settings
) -> None:
    settings.SERVING_ROUTE_CACHE_S = 600  # only the shared revision can refresh it here
    routing.forget(deployment.pk)
    before = routing.route(deployment)
    assert before.canary is None
    # Another process (a serve worker's analysis, another web process) starts a canary: its
    # rows change and it bumps the shared revision; this process's cache is not touched.
    candidate = served.version(sft_steps=1, step=80, promoted=False)
    with mock.patch.object(routing, "forget", lambda _id: None):
        canary = canaries.start(owner, deployment, candidate=candidate.pk)
    assert routing.route(deployment) is before  # nothing said yet: the kept route
    routing._bump(deployment.pk)
    after = routing.route(deployment)
    assert after.canary is not None and after.canary.pk == canary.pk
    assert routing.route(deployment) is after  # kept again until the next change


def test_the_canary_says_how_many_more_answers_its_step_needs(
    api, owner, served, deployment
) -> None:  # type: ignore[no-untyped-def]
    candidate = served.version(sft_steps=1, step=80, promoted=False)
    canary = canaries.start(owner, deployment, candidate=candidate.pk, steps=[20, 40])
    for side, n, passed in (("production", 80, 72), ("candidate", 20, 18)):
        ServedRequest.objects.bulk_create(
            ServedRequest(
                deployment=deployment, canary=canary, step=0, side=side, prompt="p",
                status="ok", latency_ms=100.0 + i % 7, output_tokens=20, family="digits",
                task="t", passed=i < passed, judged_against="pool",
            )
            for i in range(n)
        )  # fmt: skip
    canaries.observe(canary.pk)
    needed = api.get(f"/api/v1/canaries/{canary.pk}/").json()["analysis"]["needed"]
    production, cand = canaries.sides(Canary.objects.get(pk=canary.pk))
    expected = answers_needed(production, cand, Guardrails(), 0.2)
    assert needed == expected.to_dict() and needed["answers"] > 20
    assert needed["requests"] == pytest.approx(needed["answers"] / 0.2, abs=1)
    assert f"needs about {needed['answers']} more candidate answers" in needed["detail"]
