"""A replica answers only the platform: what an outsider posts to it straight, unsigned or
signed with a guess, is refused before anything is generated or logged; its secret is in
no API answer and no log line, and its address is shown to nobody."""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
import uuid

import pytest

from serving.models import Replica, ReplicaRole, ServedRequest
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import URL, canary, deploy, generate, production_replica
from training.serving import SIGNATURE_HEADER, sign

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    return Served(owner, tmp_path)


def post_to(replica: Replica, body: dict, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(
        f"{replica.address}/generate", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def test_it_refuses_requests_the_platform_did_not_sign_and_logs_none_of_them(  # type: ignore[no-untyped-def]
    api, client_for, teammate, served, caplog
) -> None:
    served.production(served.version(sft_steps=1, step=40))
    candidate = served.version(sft_steps=1, step=80, promoted=False)
    deployment = deploy(api, served)
    caplog.set_level(logging.DEBUG)
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", candidate.pk, steps=[50])
        replica = Replica.objects.get(deployment=deployment, role=ReplicaRole.PRODUCTION)
        (prompt, task), *_ = served.held_out(1)

        # A viewer who read the replica's address forges the candidate's failed answers.
        def forged() -> dict:  # noqa: E306
            return {"prompt": prompt, "meta": {
                "request_id": str(uuid.uuid4()), "canary": started.pk, "step": 0,
                "side": "candidate", "family": "digits", "task": task,
                "expected": {"answer": "x"}, "verifier_version": served.verifier.pk,
            }}  # fmt: skip

        assert post_to(replica, forged()) == 401
        body = forged()
        guessed = sign("a-guessed-secret", "POST", "/generate", json.dumps(body).encode())
        assert post_to(replica, body, {SIGNATURE_HEADER: guessed}) == 401
        # The platform's own signed requests are answered, and logged as it routed them.
        answer = generate(client_for(teammate), "sorter", prompt=prompt, family="digits", task=task)
        assert answer.status_code == 200, answer.json()
        time.sleep(1.0)  # what a forged request would have logged has landed by now
        rows = list(ServedRequest.objects.all())
        assert [str(r.id) for r in rows] == [answer.json()["id"]]

    secrets_ = set(Replica.objects.values_list("secret", flat=True))
    assert len(secrets_) == 2 and all(len(s) >= 43 for s in secrets_)  # one each, 256 bits
    shown = "".join(
        client.get(path).content.decode()
        for client in (api, client_for(teammate))
        for path in (
            f"{URL}sorter/",
            URL,
            f"/api/v1/canaries/{started.pk}/",
            f"{URL}sorter/requests/",
        )
    )
    assert replica.address and replica.address not in shown
    assert f":{replica.address.rsplit(':', 1)[1]}" not in shown  # not even its port
    assert not any(s in shown for s in secrets_)
    logged = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert "replica.ready" in logged and not any(s in logged for s in secrets_)
