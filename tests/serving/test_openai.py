"""The OpenAI-compatible endpoints, driven by the official ``openai`` client against the web
server's ASGI app (uvicorn on a free port) and a real replica of the tiny model."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from types import SimpleNamespace

import openai
import pytest
import uvicorn
from django.db import connections
from django.utils import timezone

from crucible.accounts import services as accounts
from crucible.accounts.models import ApiToken
from crucible.asgi import application
from serving.models import ServedRequest
from serving.openai_api import app as lean
from serving.openai_api.protocol import CHAT, TEXT, Ask
from serving.services import serving
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import canary, deploy, generate, logged, production_replica
from tests.web_server import free_port

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server_url() -> Iterator[str]:
    """The project's ASGI app under uvicorn, in this process (it sees the test database);
    its threads give their connections back after each call, as under the pool in production."""
    kept = connections.settings["default"]["CONN_MAX_AGE"]
    connections.settings["default"]["CONN_MAX_AGE"] = 0
    lean.application.callers.clear()
    lean.application.deployments.clear()
    port = free_port()
    config = uvicorn.Config(
        application, host="127.0.0.1", port=port, lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    connections.settings["default"]["CONN_MAX_AGE"] = kept


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    return Served(owner, tmp_path)


def client(url: str, user, team=None) -> openai.OpenAI:  # type: ignore[no-untyped-def]
    key = accounts.create_token(user, "openai", team=team).secret
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=60)


def raw(url: str, body: bytes | None, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """(status, the error object, headers) of a refused request (a GET without a body)."""
    request = urllib.request.Request(url, data=body, headers=headers or {})
    try:
        urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())["error"], refused.headers
    raise AssertionError(f"{url} was answered")


def ask(kind: str = CHAT, **fields) -> Ask:  # type: ignore[no-untyped-def]
    base = dict(
        kind=kind, model="m", prompt="12", system=None, max_tokens=None, temperature=None,
        top_p=1.0, n=1, stop=(), seed=None, logprobs=False, stream=False,
        include_usage=False, key="",
    )  # fmt: skip
    return Ask(**{**base, **fields})


@pytest.mark.slow
def test_the_openai_client_chats_and_completes_plain_and_streaming(  # type: ignore[no-untyped-def]
    api, owner, team, served, server_url
) -> None:
    served.production(served.version(sft_steps=60, step=40))
    deployment = deploy(api, served)
    chat = client(server_url, owner, team)
    (prompt, _), *_ = served.held_out(1)
    with replica_thread(production_replica(deployment)):
        assert [m.id for m in chat.models.list().data] == ["sorter"]
        assert chat.models.retrieve("sorter").owned_by == team.slug

        reference = generate(api, "sorter", prompt=prompt, max_new_tokens=12).json()
        answer = chat.chat.completions.create(
            model="sorter", messages=[{"role": "user", "content": prompt}], max_tokens=12,
            temperature=0, user="caller-1",
        )  # fmt: skip
        assert answer.object == "chat.completion" and answer.model == "sorter"
        assert answer.choices[0].message.content == reference["completion"]  # the same model
        assert answer.choices[0].finish_reason in ("stop", "length")
        assert answer.usage is not None and answer.usage.prompt_tokens > 0
        assert answer.usage.completion_tokens == reference["output_tokens"]
        extra = answer.model_extra["crucible"]  # type: ignore[index]
        assert extra["side"] == "production" and extra["format_warnings"] == []
        row = logged(extra["request_id"])
        assert row.key == "caller-1" and row.completion == reference["completion"]
        assert row.format_warnings == []

        stream = chat.chat.completions.create(
            model="sorter", messages=[{"role": "user", "content": prompt}], max_tokens=12,
            temperature=0, stream=True, stream_options={"include_usage": True},
        )  # fmt: skip
        pieces = list(stream)
        text = "".join(c.choices[0].delta.content or "" for c in pieces if c.choices)
        assert text == reference["completion"]
        # sent as the replica generates it: a piece per token, not the answer in one chunk
        assert len([c for c in pieces if c.choices and c.choices[0].delta.content]) > 1
        assert pieces[0].model_extra["crucible"]["side"] == "production"  # type: ignore[index]
        assert [c.choices[0].finish_reason for c in pieces if c.choices][-1] in ("stop", "length")
        assert pieces[-1].usage is not None and pieces[-1].usage.total_tokens > 0

        # A system message the model was not trained with is answered, and flagged as drift.
        drifted = chat.chat.completions.create(
            model="sorter", max_tokens=8, temperature=0, messages=[
                {"role": "system", "content": "Be brief."}, {"role": "user", "content": prompt}],
        )  # fmt: skip
        warning = drifted.model_extra["crucible"]["format_warnings"]  # type: ignore[index]
        assert "system prompt differs" in warning[0]
        assert "system prompt differs" in logged(drifted.id.removeprefix("chatcmpl-")).format_warnings[0]

        sampled = chat.completions.create(
            model="sorter", prompt=prompt, max_tokens=8, temperature=1.0, top_p=0.9, n=2,
            seed=5, logprobs=0,
        )  # fmt: skip
        again = chat.completions.create(
            model="sorter", prompt=prompt, max_tokens=8, temperature=1.0, top_p=0.9, n=2,
            seed=5, logprobs=0,
        )  # fmt: skip
        assert len(sampled.choices) == 2
        assert [c.text for c in sampled.choices] == [c.text for c in again.choices]  # seeded
        for choice in sampled.choices:
            assert choice.logprobs is not None and "".join(choice.logprobs.tokens) == choice.text
            assert all(v <= 0 for v in choice.logprobs.token_logprobs)
        stopped = chat.completions.create(
            model="sorter", prompt=prompt, max_tokens=12, temperature=0, stop=[reference["completion"][1:2]]
        )  # fmt: skip
        assert stopped.choices[0].text == reference["completion"][:1]
        assert stopped.choices[0].finish_reason == "stop"

        streamed = chat.completions.create(
            model="sorter", prompt=prompt, max_tokens=12, temperature=0, stream=True
        )
        assert "".join(c.choices[0].text for c in streamed if c.choices) == reference["completion"]
    assert ServedRequest.objects.filter(deployment=deployment).count() == 8


@pytest.mark.slow
def test_it_refuses_in_openais_error_shape(  # type: ignore[no-untyped-def]
    api, owner, team, outsider, served, server_url
) -> None:
    served.production(served.version(sft_steps=1, step=40))
    deploy(api, served)
    mine = client(server_url, owner, team)
    message = [{"role": "user", "content": "12"}]

    wrong = openai.OpenAI(base_url=f"{server_url}/v1", api_key="crc_nope", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as refused:
        wrong.models.list()
    assert refused.value.code == "invalid_api_key"
    # Another team's token: the model does not exist for it.
    theirs = client(server_url, outsider, outsider.memberships.get().team)
    with pytest.raises(openai.NotFoundError) as missing:
        theirs.chat.completions.create(model="sorter", messages=message)  # type: ignore[arg-type]
    assert missing.value.code == "model_not_found" and missing.value.param == "model"
    assert theirs.models.list().data == []

    for bad, param in (
        ({"temperature": 7}, "temperature"), ({"n": 50}, "n"), ({"max_tokens": 10_000}, "max_tokens"),
        ({"extra_body": {"tools": []}}, "tools"), ({"top_logprobs": 3, "logprobs": True}, "top_logprobs"),
        ({"messages": [{"role": "assistant", "content": "x"}]}, "messages[0].role"),
    ):  # fmt: skip
        with pytest.raises(openai.BadRequestError) as invalid:
            mine.chat.completions.create(**{"model": "sorter", "messages": message, **bad})  # type: ignore[call-overload]
        body = invalid.value.body
        assert isinstance(body, dict) and body["param"] == param, body
        assert body["type"] == "invalid_request_error"

    # A body is not read before its key is checked, nor past its limit after.
    big, key = b"x" * (lean.MAX_BODY_BYTES + 1), {"Authorization": f"Bearer {mine.api_key}"}
    status, error, _ = raw(f"{server_url}/v1/chat/completions", big)
    assert status == 401 and error["code"] == "invalid_api_key"
    status, error, _ = raw(f"{server_url}/v1/completions", big, key)
    assert status == 413 and error["code"] == "body_too_large"
    status, error, headers = raw(f"{server_url}/v1/chat/completions", None, key)
    assert status == 405 and headers["allow"] == "POST"

    # No replica is serving yet: a 503 that says so, logged as refused.
    with pytest.raises(openai.InternalServerError) as down:
        mine.chat.completions.create(model="sorter", messages=message)  # type: ignore[arg-type]
    assert down.value.status_code == 503 and "starting" in str(down.value.message)
    assert down.value.response.headers["retry-after"] == "5"
    deadline = time.monotonic() + 10
    while not ServedRequest.objects.filter(status="error").exists():
        assert time.monotonic() < deadline, "the refused request was never logged"
        time.sleep(0.05)

    # A revoked token is refused once its cached lookup has expired.
    ApiToken.objects.filter(user=owner).update(revoked_at=timezone.now())
    time.sleep(lean.CALLER_CACHE_S + 0.1)
    with pytest.raises(openai.AuthenticationError, match="revoked"):
        mine.models.list()


@pytest.mark.slow
def test_a_split_canary_answers_a_share_of_openai_traffic_sticky_by_user(  # type: ignore[no-untyped-def]
    api, owner, team, served, server_url
) -> None:
    served.production(served.version(sft_steps=60, step=40))
    candidate = served.version(sft_steps=20, step=80, promoted=False)
    deployment = deploy(api, served)
    chat = client(server_url, owner, team)
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", candidate.pk, steps=[50])
        with replica_thread(started.replica):
            for i in range(6):
                user = f"u{i}"
                sides = {
                    chat.chat.completions.create(
                        model="sorter", messages=[{"role": "user", "content": "31"}],
                        max_tokens=4, user=user,
                    ).model_extra["crucible"]["side"]  # type: ignore[index]
                    for _ in range(2)
                }  # fmt: skip
                expected = "candidate" if serving.bucket(user) < 50 else "production"
                assert sides == {expected}
    rows = ServedRequest.objects.filter(canary=started)
    assert rows.filter(side="candidate").exists() and rows.filter(side="production").exists()


def test_it_serves_the_recorded_format_and_names_what_a_request_changes() -> None:
    chat_model = SimpleNamespace(version=SimpleNamespace(format={
        "chat_template": "{{ messages }}", "add_special_tokens": False,
        "system_prompt": "Sort the digits.", "reasoning_tags": ["<think>", "</think>"],
    }))  # fmt: skip
    raw_model = SimpleNamespace(version=SimpleNamespace(format={"chat_template": None}))

    assert lean.encoded(chat_model, ask()) == ("12", None, [])  # type: ignore[arg-type]
    same = ask(system="Sort the digits.")
    assert lean.encoded(chat_model, same) == ("12", None, [])  # type: ignore[arg-type]
    prompt, encoding, drift = lean.encoded(chat_model, ask(system="Be brief."))  # type: ignore[arg-type]
    assert encoding == {"kind": "chat", "system_prompt": "Be brief."}
    assert "system prompt differs" in drift[0]
    prompt, encoding, drift = lean.encoded(chat_model, ask(TEXT))  # type: ignore[arg-type]
    assert encoding == {"kind": "raw"} and "chat format differs" in drift[0]

    assert lean.encoded(raw_model, ask(TEXT)) == ("12", None, [])  # type: ignore[arg-type]
    prompt, encoding, drift = lean.encoded(raw_model, ask(system="Be brief."))  # type: ignore[arg-type]
    assert (prompt, encoding) == ("Be brief.\n\n12", None) and "system prompt differs" in drift[0]


@pytest.mark.slow
def test_a_shadow_canary_answers_copies_of_openai_traffic_nobody_sees(  # type: ignore[no-untyped-def]
    api, owner, team, served, server_url
) -> None:
    served.production(served.version(sft_steps=60, step=40))
    candidate = served.version(sft_steps=20, step=80, promoted=False)
    deployment = deploy(api, served)
    chat = client(server_url, owner, team)
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", candidate.pk, mode="shadow", steps=[100])
        with replica_thread(started.replica):
            ids = []
            for i in range(4):
                answer = chat.chat.completions.create(
                    model="sorter", messages=[{"role": "user", "content": "sort 31="}],
                    max_tokens=4, user=f"u{i}",
                )  # fmt: skip
                extra = answer.model_extra["crucible"]  # type: ignore[index]
                assert extra["side"] == "production"
                ids.append(extra["request_id"])
            deadline = time.monotonic() + 20
            copies = ServedRequest.objects.filter(canary=started, shadow=True, side="candidate")
            while copies.count() < 4:
                assert time.monotonic() < deadline, f"{copies.count()} shadow copies logged"
                time.sleep(0.1)
    assert {logged(i).side for i in ids} == {"production"}
