"""Per-token log-probabilities in streamed answers: each chunk carries those of the tokens
its text completes, and all of them together are the whole answer's, as OpenAI streams them."""

from __future__ import annotations

import pytest

from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import deploy, production_replica
from tests.serving.test_openai import (
    client,
    server_url,  # noqa: F401 - the live server fixture
)

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    return Served(owner, tmp_path)


@pytest.mark.slow
def test_streamed_chunks_carry_their_tokens_log_probabilities(  # type: ignore[no-untyped-def]
    api,
    owner,
    team,
    served,
    server_url,  # noqa: F811
) -> None:
    served.production(served.version(sft_steps=60, step=40))
    deployment = deploy(api, served)
    chat = client(server_url, owner, team)
    (prompt, _), *_ = served.held_out(1)
    asked = {"model": "sorter", "max_tokens": 12, "temperature": 0, "logprobs": True}
    message = [{"role": "user", "content": prompt}]
    with replica_thread(production_replica(deployment)):
        whole = chat.chat.completions.create(messages=message, **asked)  # type: ignore[call-overload]
        assert whole.choices[0].logprobs is not None
        expected = [(t.token, t.logprob) for t in whole.choices[0].logprobs.content]
        chunks = list(chat.chat.completions.create(messages=message, stream=True, **asked))  # type: ignore[call-overload]
        scored = [c for c in chunks if c.choices and c.choices[0].logprobs is not None
                  and c.choices[0].logprobs.content]  # fmt: skip
        # Sent with the text they spell, not all at the end.
        assert len([c for c in scored if c.choices[0].delta.content]) > 1
        got = [(t.token, t.logprob) for c in scored for t in c.choices[0].logprobs.content]  # type: ignore[union-attr]
        assert [t for t, _ in got] == [t for t, _ in expected]
        assert [v for _, v in got] == pytest.approx([v for _, v in expected], abs=1e-4)

        text = list(chat.completions.create(
            model="sorter", prompt=prompt, max_tokens=12, temperature=0, logprobs=0, stream=True,
        ))  # fmt: skip
        answer = "".join(c.choices[0].text for c in text if c.choices)
        tokens, offsets = [], []
        for c in text:
            if c.choices and c.choices[0].logprobs is not None:
                tokens += c.choices[0].logprobs.tokens or []
                offsets += c.choices[0].logprobs.text_offset or []
        assert "".join(tokens) == answer
        assert offsets == [sum(len(t) for t in tokens[:i]) for i in range(len(tokens))]
