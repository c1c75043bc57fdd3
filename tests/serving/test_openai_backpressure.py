"""Back-pressure: a replica whose queue is full answers 429 with ``Retry-After``, in OpenAI's
error shape on the OpenAI endpoints (the official client, retries off, sees a
``RateLimitError``) and in the API's error shape on the REST ``generate`` endpoint."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai
import pytest

from crucible.accounts import services as accounts
from serving.models import Deployment
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import URL, deploy, production_replica
from tests.serving.test_openai import server_url  # noqa: F401 - the live server fixture

pytestmark = [pytest.mark.django_db(transaction=True)]
ROUNDS, AT_ONCE = 4, 8


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    return Served(owner, tmp_path)


def _rest(url: str, key: str) -> tuple[int, dict[str, Any], str]:
    """(status, body, Retry-After) of one REST generate request."""
    data = json.dumps({"prompt": "sort 9876=", "max_new_tokens": 200, "temperature": 2.0})
    request = urllib.request.Request(
        f"{url}{URL}sorter/generate/", data=data.encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read()), ""
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read()), refused.headers.get("Retry-After", "")


@pytest.mark.slow
def test_a_full_replica_queue_answers_429_with_retry_after_on_both_paths(  # type: ignore[no-untyped-def]
    api,
    owner,
    team,
    served,
    server_url,  # noqa: F811
) -> None:
    served.production(served.version(sft_steps=1, step=40))
    deployment = deploy(api, served)
    # One request decodes, one waits: the others find the queue full.
    Deployment.objects.filter(pk=deployment.pk).update(max_queue=1, max_batch=1)
    key = accounts.create_token(owner, "openai", team=team).secret
    chat = openai.OpenAI(base_url=f"{server_url}/v1", api_key=key, max_retries=0, timeout=120)

    def ask_chat(_: int) -> Any:
        try:
            return chat.chat.completions.create(
                model="sorter", messages=[{"role": "user", "content": "sort 9876="}],
                max_tokens=200, temperature=2.0,
            )  # fmt: skip
        except openai.APIStatusError as refused:
            return refused

    limited: list[openai.RateLimitError] = []
    rest_limited: list[tuple[int, dict[str, Any], str]] = []
    answered = 0
    with replica_thread(production_replica(deployment)), ThreadPoolExecutor(AT_ONCE * 2) as pool:
        for _ in range(ROUNDS):
            chats = pool.map(ask_chat, range(AT_ONCE))
            rests = pool.map(lambda _: _rest(server_url, key), range(AT_ONCE))
            for got in chats:
                if isinstance(got, openai.RateLimitError):
                    limited.append(got)
                else:
                    assert not isinstance(got, Exception), got
                    answered += 1
            for status, body, retry in rests:
                assert status in (200, 429), (status, body)
                answered += status == 200
                if status == 429:
                    rest_limited.append((status, body, retry))
            if limited and rest_limited:
                break
    assert answered > 0  # the queue's room is served all the while
    assert limited, "no chat request found the queue full"
    refused = limited[0]
    assert refused.status_code == 429 and refused.code == "rate_limit_exceeded"
    assert isinstance(refused.body, dict) and refused.body["type"] == "rate_limit_error"
    assert "queue is full" in refused.body["message"]
    assert refused.response.headers["retry-after"].isdigit()
    assert refused.response.headers["x-request-id"]
    # The REST path: the same status and Retry-After, in the API's error shape.
    assert rest_limited, "no REST request found the queue full"
    _, body, retry = rest_limited[0]
    assert retry.isdigit() and body["errors"][0]["code"] == "throttled"
    assert "queue is full" in body["errors"][0]["message"] and body["id"]
