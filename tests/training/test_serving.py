"""The model server: batching, a bounded queue, timeouts and its HTTP face, on the tiny model."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from training import digits
from training.config import SamplingConfig
from training.decode import make_generator
from training.serving import (
    SIGNATURE_HEADER,
    BatchingServer,
    Pending,
    QueueFull,
    ServingHTTP,
    _merged,
    sign,
)


class SlowGenerator:
    """Wraps a generator, holding each batch ``delay_s`` and remembering batch sizes."""

    def __init__(self, inner, delay_s: float = 0.0) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.delay_s, self.batches = inner, delay_s, []

    def generate(self, prompts, sampling, n=1):  # type: ignore[no-untyped-def]
        self.batches.append(len(prompts))
        time.sleep(self.delay_s)
        return self.inner.generate(prompts, sampling, n)

    def sync_weights(self) -> None:
        pass


@pytest.fixture
def generator(base):  # type: ignore[no-untyped-def]
    model, tokenizer = base
    return make_generator(SamplingConfig(), model, tokenizer)


def post(url: str, body: dict) -> tuple[int, dict, dict]:
    request = urllib.request.Request(
        f"{url}/generate",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read()), dict(answer.headers)
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read()), dict(refused.headers)


def test_concurrent_requests_are_batched_and_answered_as_generate_would(generator, base) -> None:  # type: ignore[no-untyped-def]
    slow = SlowGenerator(generator, delay_s=0.05)
    done: list[list[Pending]] = []
    server = BatchingServer(slow, max_batch=8, batch_wait_s=0.02, on_done=done.append)
    server.start()
    try:
        prompts = [digits.make_item(d).prompt for d in ("31", "42", "953", "7210", "66", "18")]
        pending = [server.submit(Pending(p, 12, 0.0)) for p in prompts]
        assert all(p.done.wait(30) for p in pending)
    finally:
        server.stop()
    assert max(slow.batches) > 1, slow.batches  # requests that arrived together shared a batch
    greedy = generator.generate(prompts, SamplingConfig(max_new_tokens=12, temperature=0.0))
    assert [p.completion for p in pending] == greedy.texts  # batching changes nothing
    assert all(p.error is None and p.output_tokens > 0 for p in pending)
    assert sum(len(group) for group in done) == len(prompts)  # every answer reached on_done


def test_a_full_queue_refuses_with_a_wait_and_queues_nothing(generator) -> None:  # type: ignore[no-untyped-def]
    server = BatchingServer(SlowGenerator(generator, 0.3), max_batch=1, max_queue=2)
    server.start()
    try:
        first = server.submit(Pending("sort 12=", 4, 0.0))
        time.sleep(0.1)  # the first is generating; two more fill the queue
        server.submit(Pending("sort 34=", 4, 0.0))
        server.submit(Pending("sort 56=", 4, 0.0))
        with pytest.raises(QueueFull) as full:
            server.submit(Pending("sort 78=", 4, 0.0))
        assert full.value.retry_after_s >= 1
        assert server.queued == 2
        assert first.done.wait(10)
    finally:
        server.stop()


def test_new_limits_apply_while_serving(generator) -> None:  # type: ignore[no-untyped-def]
    slow = SlowGenerator(generator, 0.3)
    server = BatchingServer(slow, max_batch=1, max_queue=1, batch_wait_s=0.05)
    server.start()
    try:
        first = server.submit(Pending("sort 12=", 4, 0.0))
        time.sleep(0.1)  # generating; one more fills the queue
        server.submit(Pending("sort 34=", 4, 0.0))
        with pytest.raises(QueueFull):
            server.submit(Pending("sort 56=", 4, 0.0))
        server.resize(max_batch=4, max_queue=3)  # room for two more, batched together
        later = [server.submit(Pending(p, 4, 0.0)) for p in ("sort 56=", "sort 78=")]
        assert first.done.wait(10) and all(p.done.wait(10) for p in later)
        assert max(slow.batches) == 3  # the queued one and the two let in, in one batch
        with pytest.raises(ValueError):
            server.resize(max_batch=0, max_queue=3)
    finally:
        server.stop()


def test_http_answers_refuses_and_times_out_in_json(generator) -> None:  # type: ignore[no-untyped-def]
    slow = SlowGenerator(generator, 0.0)
    server = BatchingServer(slow, max_batch=4, max_queue=1)
    http = ServingHTTP(server, describe=lambda: {"model": "tiny"})
    server.start()
    http.start()
    try:
        status, body, _ = post(http.address, {"prompt": "sort 321=", "max_new_tokens": 8})
        assert status == 200 and body["output_tokens"] > 0 and body["batch_size"] == 1
        assert isinstance(body["completion"], str)

        status, body, _ = post(http.address, {"prompt": "", "max_new_tokens": 8})
        assert status == 400 and body["detail"].startswith("prompt:")
        status, body, _ = post(http.address, {"prompt": "x", "max_new_tokens": 10_000})
        assert status == 400 and body["detail"].startswith("max_new_tokens:")

        served = server.served
        status, body, _ = post(http.address, {"prompt": "sort 1=", "shadow": True})
        assert status == 202  # a shadow copy is queued; nobody waits for it
        deadline = time.monotonic() + 30
        while server.served == served:  # it is answered all the same
            assert time.monotonic() < deadline
            time.sleep(0.01)

        slow.delay_s = 1.0
        status, body, _ = post(http.address, {"prompt": "sort 9=", "timeout_s": 0.2})
        assert status == 504 and "within 0.2 s" in body["detail"]
        results: list[int] = []
        threads = [
            threading.Thread(
                target=lambda: results.append(post(http.address, {"prompt": "sort 5="})[0])
            )
            for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert 429 in results, results  # one generating, one queued: the rest come back later

        with urllib.request.urlopen(f"{http.address}/health", timeout=5) as answer:
            health = json.loads(answer.read())
        assert health["ready"] is True and health["model"] == "tiny" and health["max_queue"] == 1
    finally:
        http.stop()
        server.stop()


SECRET = "replica-secret-for-tests-0123456789abcdef"


@pytest.fixture
def guarded(generator):  # type: ignore[no-untyped-def]
    """A server that answers only requests signed with SECRET, and what it answered."""
    answered: list[Pending] = []
    server = BatchingServer(generator, max_batch=4, on_done=answered.extend)
    http = ServingHTTP(server, secret=SECRET)
    server.start()
    http.start()
    try:
        yield http, answered
    finally:
        http.stop()
        server.stop()


def signed_post(url: str, body: dict, secret: str = SECRET, **overrides) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    headers[SIGNATURE_HEADER] = overrides.get("signature") or sign(
        secret, "POST", "/generate", overrides.get("signed_body", data), overrides.get("now")
    )
    request = urllib.request.Request(f"{url}/generate", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_it_answers_only_requests_signed_with_its_secret(guarded) -> None:  # type: ignore[no-untyped-def]
    http, answered = guarded
    # What an outsider sent: no signature, and a log row's fields in meta.
    forged = {"prompt": "sort 21=", "meta": {"canary": 1, "side": "candidate",
              "expected": {"answer": "9"}, "request_id": "00000000-0000-0000-0000-000000000001"}}  # fmt: skip
    status, body, _ = post(http.address, forged)
    assert status == 401 and SIGNATURE_HEADER in body["detail"]
    assert signed_post(http.address, forged, secret="a-guessed-secret")[0] == 401
    other_body = json.dumps({"prompt": "sort 1="}).encode()
    assert signed_post(http.address, forged, signed_body=other_body)[0] == 401
    stale = time.time() - 3600  # a captured request, sent again an hour later
    assert signed_post(http.address, forged, now=stale)[0] == 401
    assert signed_post(http.address, forged, signature="t=1,v1=" + "0" * 64)[0] == 401
    with pytest.raises(urllib.error.HTTPError) as health:
        urllib.request.urlopen(f"{http.address}/health", timeout=5)
    assert health.value.code == 401
    time.sleep(0.2)
    assert answered == [] and http.server.served == 0  # nothing was queued, nothing logged

    status, body = signed_post(http.address, {"prompt": "sort 21=", "max_new_tokens": 4})
    assert status == 200 and body["output_tokens"] > 0
    request = urllib.request.Request(
        f"{http.address}/health", headers={SIGNATURE_HEADER: sign(SECRET, "GET", "/health", b"")}
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        assert json.loads(answer.read())["served"] == 1


def test_it_listens_beyond_loopback_only_with_a_secret(generator) -> None:  # type: ignore[no-untyped-def]
    server = BatchingServer(generator)
    with pytest.raises(ValueError, match="loopback only"):
        ServingHTTP(server, host="0.0.0.0")
    http = ServingHTTP(server, host="0.0.0.0", secret=SECRET)
    http.httpd.server_close()


def test_a_burst_of_connections_waits_to_be_accepted_instead_of_being_dropped(generator) -> None:  # type: ignore[no-untyped-def]
    """64 clients connecting at once while nothing accepts (the generation thread holding the
    interpreter): each connection completes its handshake and waits in the backlog, rather
    than losing its SYN and retrying a second later."""
    http = ServingHTTP(BatchingServer(generator))  # listening, not yet accepting
    host, port = http.httpd.server_address[:2]
    sockets = []
    try:
        for _ in range(64):
            sockets.append(socket.create_connection((host, port), timeout=0.5))
    finally:
        for sock in sockets:
            sock.close()
        http.httpd.server_close()
    assert len(sockets) == 64


def raw_exchange(address: str, head: str, body: bytes = b"") -> bytes:
    """Send a hand-written request; what came back before the server closed (or 5 s)."""
    host, port = address.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass  # the server neither answered in full nor closed
    return received


@pytest.mark.parametrize(
    ("length", "status"),
    [
        ("-1", 400),  # read until the client hangs up
        ("-5", 400),
        ("abc", 400),  # dropped the connection without an answer
        ("1e3", 400),
        ("99999999999999999999999", 413),
        ("2000000", 413),
    ],
)
def test_it_answers_a_malformed_content_length_and_closes(guarded, length, status) -> None:  # type: ignore[no-untyped-def]
    http, answered = guarded
    head = f"POST /generate HTTP/1.1\nHost: x\nContent-Length: {length}\n"
    received = raw_exchange(http.address, head, b'{"prompt": "sort 1="}')
    assert received.startswith(f"HTTP/1.1 {status} ".encode()), received[:200]
    assert b"Connection: close" in received and b'"detail": "Content-Length: ' in received
    assert answered == []


def test_it_refuses_a_chunked_or_doubled_length(guarded) -> None:  # type: ignore[no-untyped-def]
    http, _ = guarded
    chunked = "POST /generate HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\n"
    assert raw_exchange(http.address, chunked, b"5\r\nhello\r\n0\r\n\r\n").startswith(
        b"HTTP/1.1 411 "
    )
    doubled = "POST /generate HTTP/1.1\nHost: x\nContent-Length: 2\nContent-Length: 40\n"
    assert raw_exchange(http.address, doubled, b"{}").startswith(b"HTTP/1.1 400 ")


def test_it_answers_n_completions_cut_at_stops_with_logprobs_and_seeded(generator) -> None:  # type: ignore[no-untyped-def]
    server = BatchingServer(generator, max_batch=8, batch_wait_s=0.01)
    server.start()
    try:
        prompt = digits.make_item("953").prompt

        def ask(**kwargs):  # type: ignore[no-untyped-def]
            pending = server.submit(Pending(prompt, 8, 1.0, **kwargs))
            assert pending.done.wait(30) and pending.error is None, pending.error
            return pending

        many = ask(n=3, seed=7, logprobs=True, top_p=0.9)
        assert len(many.choices) == 3 and many.prompt_tokens > 0
        for choice in many.choices:
            logprobs = choice["logprobs"]
            assert "".join(logprobs["tokens"]) == choice["text"]
            assert len(logprobs["token_logprobs"]) == choice["output_tokens"]
            assert all(v <= 0 for v in logprobs["token_logprobs"])
        again = ask(n=3, seed=7, logprobs=True, top_p=0.9)
        assert [c["text"] for c in again.choices] == [c["text"] for c in many.choices]

        greedy = ask(seed=1).choices[0]["text"]
        assert len(greedy) > 1
        stop = greedy[1:2]
        cut = ask(seed=1, stop=(stop,)).choices[0]
        assert cut["text"] == greedy[: greedy.index(stop)] and cut["finish_reason"] == "stop"
    finally:
        server.stop()


def test_it_encodes_a_request_its_own_way_only_with_a_generator_for_it(generator) -> None:  # type: ignore[no-untyped-def]
    asked: list[tuple[str, str | None]] = []

    def generator_for(encoding):  # type: ignore[no-untyped-def]
        asked.append(encoding)
        return generator

    plain = BatchingServer(generator)
    own = BatchingServer(generator, generator_for=generator_for)
    for server in (plain, own):
        server.start()
    try:
        refused = plain.submit(Pending("12", 4, 0.0, encoding=("raw", None)))
        assert refused.done.wait(30) and "only its own way" in str(refused.error)
        served = own.submit(Pending("12", 4, 0.0, encoding=("raw", None)))
        assert served.done.wait(30) and served.error is None and asked == [("raw", None)]
    finally:
        plain.stop()
        own.stop()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"n": 0}, "n"), ({"n": 99}, "n"), ({"top_p": 0}, "top_p"), ({"seed": -1}, "seed"),
        ({"stop": "x"}, "stop"), ({"stop": [""]}, "stop"), ({"stop": ["a"] * 5}, "stop"),
        ({"encoding": {"kind": "odd"}}, "encoding"),
        ({"encoding": {"kind": "raw", "system_prompt": "s"}}, "encoding.system_prompt"),
    ],
)  # fmt: skip
def test_it_refuses_sampling_settings_out_of_range(generator, body, field) -> None:  # type: ignore[no-untyped-def]
    http = ServingHTTP(BatchingServer(generator))
    with pytest.raises(ValueError, match=f"^{field}:"):
        http.parse({"prompt": "12", **body})
    http.httpd.server_close()


def test_requests_arriving_while_others_decode_join_and_answer_as_alone(generator) -> None:  # type: ignore[no-untyped-def]
    server = BatchingServer(generator, max_batch=4, max_queue=32, batch_wait_s=0.0)
    server.start()
    digits_asked = ("31", "42", "953", "7210", "66", "18", "123456", "5", "804", "2931")
    prompts = [digits.make_item(d).prompt for d in digits_asked]
    answered: dict[int, Pending] = {}

    def client(i: int) -> None:
        time.sleep(0.003 * i)  # arriving one after another, while earlier ones decode
        pending = server.submit(Pending(prompts[i], 6 + i % 7, 0.0))
        assert pending.done.wait(60)
        answered[i] = pending

    try:
        threads = [threading.Thread(target=client, args=(i,)) for i in range(len(prompts))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        server.stop()
    for i, prompt in enumerate(prompts):
        sampling = SamplingConfig(max_new_tokens=6 + i % 7, temperature=0.0)
        assert answered[i].error is None
        assert answered[i].completion == generator.generate([prompt], sampling).texts[0]
    assert max(p.batch_size for p in answered.values()) > 1  # they shared the running batch
    assert max(p.batch_size for p in answered.values()) <= 4  # never past max_batch


def test_it_streams_each_completion_as_it_is_generated(generator) -> None:  # type: ignore[no-untyped-def]
    server = BatchingServer(generator, max_batch=4, stream_interval_s=0.0)
    http = ServingHTTP(server)
    server.start()
    http.start()
    try:
        body = {"prompt": digits.make_item("953271").prompt, "max_new_tokens": 10, "n": 2,
                "temperature": 1.0, "seed": 3, "stream": True}  # fmt: skip
        request = urllib.request.Request(f"{http.address}/generate", json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.headers["Transfer-Encoding"] == "chunked"
            events = [json.loads(line) for line in answer]  # urllib undoes the chunking
        status, whole, _ = post(http.address, {**body, "stream": False})
    finally:
        http.stop()
        server.stop()
    pieces, last = events[:-1], events[-1]
    assert last["done"] is True and status == 200
    assert [c["text"] for c in last["choices"]] == [c["text"] for c in whole["choices"]]
    for index in (0, 1):
        streamed = "".join(e["text"] for e in pieces if e["index"] == index)
        assert streamed == last["choices"][index]["text"]
    assert len(pieces) >= 2 and all(e["text"] for e in pieces)  # token by token, not at once


def test_a_stream_sends_its_first_piece_at_once_and_gathers_the_rest(generator) -> None:  # type: ignore[no-untyped-def]
    prompt = digits.make_item("86420").prompt
    greedy = generator.generate([prompt], SamplingConfig(max_new_tokens=10, temperature=0.0))
    text = greedy.texts[0]
    assert len(text) > 2
    server = BatchingServer(generator, stream_interval_s=3600.0)  # no second piece is ever due
    server.start()
    try:
        pending = server.submit(Pending(prompt, 10, 0.0, n=2, stream=True))
        assert pending.done.wait(30) and pending.error is None
    finally:
        server.stop()
    pieces: dict[int, list[str]] = {0: [], 1: []}
    while (event := pending.events.get(timeout=1)) is not None:
        pieces[event["index"]].append(event["text"])
    tokens = pending.choices[0]["output_tokens"]
    assert tokens > 2
    for index in (0, 1):  # the first token's text, then what the other steps made, at the end
        assert 1 <= len(pieces[index]) <= 2 and all(pieces[index])
        assert "".join(pieces[index]) == pending.choices[index]["text"] == text
    # one prefill, then a step of both rows for each token after the first
    assert (server.prefills, server.decode_steps) == (1, tokens - 1)
    assert server.decoded_rows == 2 * server.decode_steps


def test_streamed_pieces_that_came_together_go_out_as_one_line_per_completion() -> None:
    scored = [{"tokens": [t], "token_logprobs": [-0.5 * i]} for i, t in enumerate("abc")]
    events = [
        {"index": 0, "text": "a", "logprobs": scored[0]},
        {"index": 0, "text": "b", "logprobs": scored[1]},
        None,
        {"index": 1, "text": "x"},
        {"index": 0, "text": "c", "logprobs": scored[2]},
    ]
    assert _merged(events) == [
        {"index": 0, "text": "ab",
         "logprobs": {"tokens": ["a", "b"], "token_logprobs": [-0.0, -0.5]}},
        {"index": 1, "text": "x"},
        {"index": 0, "text": "c", "logprobs": scored[2]},
    ]  # fmt: skip
    assert events[0] == {"index": 0, "text": "a", "logprobs": scored[0]}  # not changed


def test_a_stream_stops_at_a_stop_string_and_never_sends_past_it(generator) -> None:  # type: ignore[no-untyped-def]
    prompt = digits.make_item("9753").prompt
    greedy = generator.generate([prompt], SamplingConfig(max_new_tokens=10, temperature=0.0))
    text = greedy.texts[0]
    assert len(text) > 2
    server = BatchingServer(generator)
    server.start()
    try:
        pending = server.submit(Pending(prompt, 10, 0.0, stop=(text[1:3],), stream=True))
        assert pending.done.wait(30) and pending.error is None
    finally:
        server.stop()
    pieces = []
    while (event := pending.events.get(timeout=1)) is not None:
        pieces.append(event["text"])
    assert "".join(pieces) == pending.completion == text[:1]
    assert pending.choices[0]["finish_reason"] == "stop"


def test_a_continuous_server_keeps_its_queue_bound_and_batch_limit(generator) -> None:  # type: ignore[no-untyped-def]
    server = BatchingServer(generator, max_batch=2, max_queue=3, batch_wait_s=0.05)
    waiting = [
        server.submit(Pending(digits.make_item(d).prompt, 8, 0.0)) for d in ("12", "34", "56")
    ]
    with pytest.raises(QueueFull) as full:
        server.submit(Pending("sort 78=", 4, 0.0))
    assert full.value.retry_after_s >= 1 and server.queued == 3
    server.start()
    try:
        assert all(p.done.wait(30) and p.error is None for p in waiting)
    finally:
        server.stop()
    assert [p.batch_size for p in waiting][:2] == [2, 2]  # two at once; never three
    assert waiting[2].batch_size <= 2 and waiting[2].queue_ms > 0
