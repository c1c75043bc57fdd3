"""A model server: one model held in memory, requests batched as they arrive, over HTTP.

``BatchingServer`` takes requests into a bounded queue and answers them from one
generation thread: it waits for a first request, gathers what else arrives within
``batch_wait_s`` (up to ``max_batch``), and runs each group of requests that share their
sampling settings as one batch through a ``Generator`` (the engine's decode loop by
default). A full queue refuses at once with ``QueueFull`` and how long to wait before
retrying, estimated from recent batch times. With the engine's decode loop
(``DecodeGenerator``) the batch is continuous instead (``Continuous``): a request waits only
for the next token boundary, where it is prefilled and joins the rows being decoded
(``training.continuous``), up to ``max_batch`` requests at once, and is answered as soon as
its own completions end. Answers are handed to ``on_done`` on a
separate thread, in batches, so whatever the caller does with them (logging, verifying)
never holds up generation.

A request may also ask for ``n`` completions, nucleus sampling (``top_p``), a ``seed`` (its
completions are drawn from that seed: batched, its group is generated from it and requests
of different seeds never share a batch; continuous, from a random generator of its own),
``stop`` strings (each completion is cut before the first one), the log-probability of each
completion token, and another encoding than the server's own (``encoding``: the raw prompt,
or the chat template with another system prompt; ``generator_for`` makes the generator).

``ServingHTTP`` puts it on a socket: ``POST /generate`` with ``{prompt, max_new_tokens,
temperature, top_p, n, seed, stop, logprobs, encoding, timeout_s, meta, shadow, stream}`` (and,
for a whole chat, its ``messages`` and ``tools``: the prompt is then its transcript, and the
chat template renders every turn, ``training.prompting.Conversation``)
answers ``200`` with the completion (with ``stream``: chunked JSON lines, ``{"index", "text"}``
as each completion grows, with the ``logprobs`` of the tokens that text completes when asked,
then the answer with ``"done": true``), ``202`` for a
shadow request (queued; nobody waits for it), ``429`` with ``Retry-After`` when the queue is
full (back-pressure: the caller should slow down; the server is not down), ``504`` when the
answer did not come within ``timeout_s``, ``400`` for a malformed body;
``GET /health`` answers what the server holds and how full its queue is.

Given a ``secret``, the server answers only requests signed with it (``sign``: an HMAC of
the time, method, path and body in ``SIGNATURE_HEADER``), so only whoever holds the secret
can have it generate or feed its answer log; without one it listens on loopback only. A
body is read only up to ``MAX_BODY_BYTES`` and only with a well-formed ``Content-Length``;
anything else is answered 400, 411 or 413 and the connection closed.

Pure Python + torch: nothing here knows the platform.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import math
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch

from training.config import SamplingConfig
from training.continuous import RunningBatch
from training.decode import DecodeGenerator, sample
from training.generation import Generator, generator_stops
from training.prompting import Conversation, encode_batch

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 1_000_000
"""A request body the server reads at most; the platform's own limit is lower."""
SIGNATURE_HEADER = "X-Crucible-Signature"
SIGNATURE_MAX_AGE_S = 300
"""How far a signature's time may be from the server's clock, either way, in seconds: room
for clock skew between hosts, while a captured request soon stops being accepted."""
MAX_N = 8
"""Completions one request may ask for."""
MAX_STOPS = 4
MAX_STOP_CHARS = 200
MAX_SEED = 2**63 - 1
SOCKET_TIMEOUT_S = 60.0
"""How long a connection may keep the server waiting for its next bytes (a request line, a
header, its body); idle kept-alive connections are closed after it too."""


JOIN_WAIT_S = 0.02
"""How long a request may wait for more room in a running batch before it joins what there
is: on a CPU each prefill costs about as much as a step of the whole batch, so newcomers
join together once half the batch is free, or after this wait."""


STREAM_INTERVAL_S = 0.02
"""How often a streamed completion's new text is handed on, at most: its first piece goes
as soon as there is one (the time to first token), later ones gather what the decode steps
of this long made, so a stream costs a piece per interval rather than per token, here and
wherever it is relayed. 0: every token as it is decoded."""


MAX_TURNS = 64
"""The most turns a conversation may have (``messages``: user, assistant and tool turns)."""
MAX_TOOLS = 32


class QueueFull(Exception):
    def __init__(self, retry_after_s: float) -> None:
        super().__init__(f"the queue is full; retry after {retry_after_s:.0f} s")
        self.retry_after_s = retry_after_s


@dataclass
class Pending:
    """One request in the server: what it asks, and, once answered, its answer."""

    prompt: str
    max_new_tokens: int
    temperature: float
    meta: Mapping[str, Any] = field(default_factory=dict)
    shadow: bool = False
    top_p: float = 1.0
    n: int = 1
    seed: int | None = None
    """Seeds the request's group; None: the server's running seed."""
    stop: tuple[str, ...] = ()
    logprobs: bool = False
    encoding: tuple[str, str | None] | None = None
    """(kind, system prompt) to encode the prompt with; None: the server's generator's."""
    stream: bool = False
    """Hand each completion's text to ``events`` as it is generated."""
    events: queue.SimpleQueue[dict[str, Any] | None] = field(default_factory=queue.SimpleQueue)
    """While streaming: ``{"index", "text"}`` for each new piece of a completion's text,
    then None once the request is answered (``done``)."""
    received: float = field(default_factory=time.monotonic)
    completion: str = ""
    """The first completion (the only one unless ``n`` > 1)."""
    output_tokens: int = 0
    truncated: bool = False
    choices: list[dict[str, Any]] = field(default_factory=list)
    """Each completion: ``text``, ``output_tokens``, ``finish_reason`` (stop or length) and,
    when asked, ``logprobs`` (``tokens`` and ``token_logprobs``)."""
    prompt_tokens: int = 0
    error: str | None = None
    queue_ms: float = 0.0
    generation_ms: float = 0.0
    batch_size: int = 0
    answered_at: float = 0.0
    """Wall-clock time (``time.time``) of the answer."""
    done: threading.Event = field(default_factory=threading.Event)

    def answer(self) -> dict[str, Any]:
        return {
            "completion": self.completion,
            "output_tokens": self.output_tokens,
            "truncated": self.truncated,
            "queue_ms": round(self.queue_ms, 3),
            "generation_ms": round(self.generation_ms, 3),
            "batch_size": self.batch_size,
            "choices": self.choices,
            "prompt_tokens": self.prompt_tokens,
        }


class BatchingServer:
    def __init__(
        self,
        generator: Generator,
        *,
        max_batch: int = 8,
        max_queue: int = 64,
        batch_wait_s: float = 0.004,
        on_done: Callable[[list[Pending]], None] | None = None,
        on_done_exit: Callable[[], None] | None = None,
        seed: int = 0,
        generator_for: Callable[[tuple[str, str | None]], Generator] | None = None,
        stream_interval_s: float = STREAM_INTERVAL_S,
    ) -> None:
        if max_batch < 1 or max_queue < 1:
            raise ValueError("max_batch and max_queue must be at least 1")
        if stream_interval_s < 0:
            raise ValueError("stream_interval_s must not be negative")
        self.generator = generator
        self.max_batch = max_batch
        self.max_queue = max_queue
        self.batch_wait_s = batch_wait_s
        self.on_done = on_done
        self.on_done_exit = on_done_exit
        """Called on the answering thread as it ends (to release what ``on_done`` holds)."""
        self.seed = seed
        self.generator_for = generator_for
        """The generator for a request's own ``encoding``; None: such requests fail."""
        self.stream_interval_s = stream_interval_s
        self.served = 0
        self.failed = 0
        self.decode_steps = 0
        """Decode steps of the running batch so far (continuous batching)."""
        self.decoded_rows = 0
        """Rows those steps decoded, together: over ``decode_steps``, the batch's occupancy."""
        self.prefills = 0
        """Prefills that admitted newcomers into the running batch."""
        self._queue: queue.Queue[Pending] = queue.Queue(maxsize=max_queue)
        self._done: queue.Queue[list[Pending] | None] = queue.Queue()
        self._batch_seconds: deque[float] = deque(maxlen=20)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # --- the caller's side -----------------------------------------------------------------

    def submit(self, pending: Pending) -> Pending:
        """Queue ``pending``; ``QueueFull`` when there is no room (nothing is queued then)."""
        try:
            self._queue.put_nowait(pending)
        except queue.Full:
            raise QueueFull(self.retry_after_s()) from None
        return pending

    def retry_after_s(self) -> float:
        """How long the queue takes to drain at the recent pace, at least a second."""
        per_batch = (
            sum(self._batch_seconds) / len(self._batch_seconds) if self._batch_seconds else 1.0
        )
        return max(1.0, math.ceil(self._queue.qsize() / self.max_batch * per_batch))

    def resize(self, *, max_batch: int, max_queue: int) -> None:
        """Take new limits while serving: the next batch takes up to ``max_batch``, and the
        queue refuses past ``max_queue`` (what it already holds over a smaller limit stays)."""
        if max_batch < 1 or max_queue < 1:
            raise ValueError("max_batch and max_queue must be at least 1")
        self.max_batch = max_batch
        with self._queue.mutex:
            self.max_queue = self._queue.maxsize = max_queue
            self._queue.not_full.notify_all()

    @property
    def queued(self) -> int:
        return self._queue.qsize()

    def start(self) -> None:
        generate = self._generate_loop
        if isinstance(self.generator, DecodeGenerator):
            generate = Continuous(self).loop
        for target, name in ((generate, "generate"), (self._done_loop, "answered")):
            thread = threading.Thread(target=target, name=f"serving-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop taking batches; what is still queued is answered with an error."""
        self._stop.set()
        for thread in self._threads[:1]:
            thread.join(timeout)
        while True:
            try:
                pending = self._queue.get_nowait()
            except queue.Empty:
                break
            self._finish([pending], error="the server stopped before answering")
        self._done.put(None)
        for thread in self._threads[1:]:
            thread.join(timeout)

    # --- the generation thread -------------------------------------------------------------

    def _generate_loop(self) -> None:
        while not self._stop.is_set():
            try:
                first = self._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            batch = [first]
            deadline = time.monotonic() + self.batch_wait_s
            while len(batch) < self.max_batch:
                left = deadline - time.monotonic()
                try:
                    batch.append(
                        self._queue.get(timeout=left) if left > 0 else self._queue.get_nowait()
                    )
                except queue.Empty:
                    break
            for group in _groups(batch):
                self._run(group)

    def _run(self, group: list[Pending]) -> None:
        started = time.monotonic()
        first = group[0]
        sampling = SamplingConfig(
            max_new_tokens=first.max_new_tokens, temperature=first.temperature, top_p=first.top_p
        )
        try:
            generator = self._generator(first.encoding)
            torch.manual_seed(self.seed + self.served if first.seed is None else first.seed)
            rollout = generator.generate([p.prompt for p in group], sampling, n=first.n)
            finished = time.monotonic()
            for i, pending in enumerate(group):
                rows = range(i * first.n, (i + 1) * first.n)
                pending.choices = [_choice(generator, rollout, row, pending) for row in rows]
                pending.prompt_tokens = int(rollout.prompt_mask[i * first.n].sum())
        except Exception as exc:  # noqa: BLE001 - the batch's callers get the reason
            logger.exception("serving.generation_failed")
            self._finish(group, error=f"generation failed: {type(exc).__name__}: {exc}"[:500])
            return
        self._batch_seconds.append(finished - started)
        for pending in group:
            pending.completion = pending.choices[0]["text"]
            pending.output_tokens = sum(c["output_tokens"] for c in pending.choices)
            pending.truncated = pending.choices[0]["finish_reason"] == "length"
            pending.queue_ms = (started - pending.received) * 1000
            pending.generation_ms = (finished - started) * 1000
            pending.batch_size = len(group)
        self._finish(group)

    def _generator(self, encoding: tuple[str, str | None] | None) -> Generator:
        if encoding is None:
            return self.generator
        if self.generator_for is None:
            raise ValueError("this server encodes prompts only its own way")
        return self.generator_for(encoding)

    def _finish(self, group: list[Pending], error: str | None = None) -> None:
        now = time.time()
        for pending in group:
            pending.answered_at = now
            if error is not None:
                pending.error = error
                self.failed += 1
            else:
                self.served += 1
            pending.done.set()
            if pending.stream:
                pending.events.put(None)
        self._done.put(group)

    def _done_loop(self) -> None:
        try:
            self._answer_loop()
        finally:
            if self.on_done_exit is not None:
                self.on_done_exit()

    def _answer_loop(self) -> None:
        while True:
            group = self._done.get()
            if group is None:
                return
            if self.on_done is None:
                continue
            while len(group) < 64:  # hand over what else has been answered meanwhile
                try:
                    more = self._done.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._done.put(None)
                    break
                group = group + more
            try:
                self.on_done(group)
            except Exception:  # noqa: BLE001 - answers were sent; keep serving
                logger.exception("serving.on_done_failed")


@dataclass
class _Row:
    """One completion being decoded: its request, which of its ``n`` it is, its tokens."""

    request: _Admitted
    index: int
    ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    sent: int = 0
    """Characters of its text already streamed."""
    streamed_at: float = 0.0
    """When its text was last streamed (``time.monotonic``)."""
    scored: int = 0
    """Tokens whose log-probabilities were streamed (with the text they spell)."""
    scored_chars: int = 0
    made: dict[str, Any] | None = None
    """The finished choice."""


@dataclass
class _Admitted:
    """A request in the running batch: how its rows are encoded, stopped and sampled."""

    pending: Pending
    generator: DecodeGenerator
    stops: frozenset[int]
    sampling: SamplingConfig
    rng: torch.Generator
    started: float
    batch_size: int
    prompt_tokens: int = 0
    rows: list[_Row] = field(default_factory=list)


class Continuous:
    """``server``'s generation thread with continuous batching (``training.continuous``):
    between two tokens, queued requests are prefilled and join the rows being decoded, while
    at most ``max_batch`` requests decode at once; a row leaves at its stop token, its
    ``max_new_tokens`` or a stop string, and a request is answered as its last row leaves.
    Each request samples from a generator of its own (seeded by its ``seed``, or by the
    server's running seed), so what it draws does not depend on who shares its batch."""

    def __init__(self, server: BatchingServer) -> None:
        self.server = server
        generator = server.generator
        assert isinstance(generator, DecodeGenerator)
        self.model = generator.model
        self.batch = RunningBatch(self.model)
        self.rows: list[_Row] = []
        self.logits: torch.Tensor | None = None  # (rows, V): what each row samples next
        self.seeded = 0

    def loop(self) -> None:
        server = self.server
        while not server._stop.is_set():
            self.admit(self.take())
            if not self.rows:
                continue
            try:
                self.advance()
            except Exception as exc:  # noqa: BLE001 - the batch's callers get the reason
                logger.exception("serving.generation_failed")
                self.fail_all(f"generation failed: {type(exc).__name__}: {exc}"[:500])
        self.fail_all("the server stopped before answering")

    def take(self) -> list[Pending]:
        """Queued requests that fit in the batch: waiting for a first one when idle (and
        ``batch_wait_s`` for company); while decoding, once half the batch is free or the
        first in the queue has waited ``JOIN_WAIT_S``."""
        server = self.server
        running = len({id(row.request) for row in self.rows})
        room = server.max_batch - running
        taken: list[Pending] = []
        if room <= 0:
            return taken
        if running and 2 * room < server.max_batch and not self.overdue():
            return taken  # a prefill costs about a step: newcomers join a few at a time
        if running == 0:
            try:
                taken.append(server._queue.get(timeout=0.2))
            except queue.Empty:
                return taken
            deadline = time.monotonic() + server.batch_wait_s
            while len(taken) < room and (left := deadline - time.monotonic()) > 0:
                try:
                    taken.append(server._queue.get(timeout=left))
                except queue.Empty:
                    break
        while len(taken) < room:
            try:
                taken.append(server._queue.get_nowait())
            except queue.Empty:
                break
        return taken

    def overdue(self) -> bool:
        """Whether the longest-queued request has waited ``JOIN_WAIT_S``."""
        with self.server._queue.mutex:
            waiting = self.server._queue.queue
            first = waiting[0].received if waiting else None
        return first is not None and time.monotonic() - first >= JOIN_WAIT_S

    def admit(self, taken: list[Pending]) -> None:
        """Prefill ``taken`` (those sharing an encoding and ``n`` together) into the batch."""
        groups: dict[tuple[Any, ...], list[_Admitted]] = {}
        for pending in taken:
            admitted = self.admitted(pending, len(taken))
            if admitted is not None:
                key = (id(admitted.generator), pending.n)
                groups.setdefault(key, []).append(admitted)
        for group in groups.values():
            generator = group[0].generator
            try:
                enc = encode_batch(
                    generator.tokenizer, [a.pending.prompt for a in group], generator.prompt_format
                )
                logits = self.batch.admit(
                    enc["input_ids"], enc["attention_mask"], group[0].pending.n
                )
                self.server.prefills += 1
            except Exception as exc:  # noqa: BLE001 - these callers get the reason
                logger.exception("serving.generation_failed")
                error = f"generation failed: {type(exc).__name__}: {exc}"[:500]
                self.server._finish([a.pending for a in group], error=error)
                continue
            for i, admitted in enumerate(group):
                admitted.prompt_tokens = int(enc["attention_mask"][i].sum())
                admitted.rows = [_Row(admitted, c) for c in range(admitted.pending.n)]
                self.rows.extend(admitted.rows)
            self.logits = logits if self.logits is None else torch.cat([self.logits, logits])

    def admitted(self, pending: Pending, arriving: int) -> _Admitted | None:
        """How ``pending`` is decoded; None when it cannot join (it is answered otherwise)."""
        server = self.server
        try:
            generator = server._generator(pending.encoding)
        except Exception as exc:  # noqa: BLE001 - the caller gets the reason
            server._finish([pending], error=f"generation failed: {type(exc).__name__}: {exc}"[:500])
            return None
        if not isinstance(generator, DecodeGenerator) or generator.model is not self.model:
            server._run([pending])  # another model's generator: generated on its own
            return None
        seed = pending.seed
        if seed is None:
            seed, self.seeded = server.seed + server.served + self.seeded, self.seeded + 1
        stops = generator_stops(self.model, generator.tokenizer, generator.prompt_format)
        sampling = SamplingConfig(
            max_new_tokens=pending.max_new_tokens, temperature=pending.temperature,
            top_p=pending.top_p,
        )  # fmt: skip
        running = len({id(row.request) for row in self.rows})
        return _Admitted(
            pending, generator, frozenset(stops), sampling,
            torch.Generator(device=self.batch.device).manual_seed(seed), time.monotonic(),
            running + arriving,
        )  # fmt: skip

    def advance(self) -> None:
        """Sample every row's next token, let finished rows leave, and step the rest."""
        assert self.logits is not None
        tokens, logps = self.sample(self.logits)
        kept, now = [], time.monotonic()
        for i, (row, token, logp) in enumerate(
            zip(self.rows, tokens.tolist(), logps.tolist(), strict=True)
        ):
            row.ids.append(token)
            row.logprobs.append(logp)
            if not self.finished(row, now):
                kept.append(i)
        if len(kept) < len(self.rows):  # leaving rows cost a copy of the cache: only then
            index = torch.tensor(kept, dtype=torch.long)
            self.rows, tokens = [self.rows[i] for i in kept], tokens[index]
            self.batch.keep(index)
        if self.rows:
            self.server.decode_steps += 1
            self.server.decoded_rows += len(self.rows)
        self.logits = self.batch.step(tokens) if self.rows else None

    def sample(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(rows,) tokens and their log-probs: greedy rows at once, the others per request."""
        tokens = logits.argmax(dim=-1)
        logps = logits.log_softmax(dim=-1).gather(1, tokens[:, None]).squeeze(1)
        sampled: dict[int, tuple[_Admitted, list[int]]] = {}
        for i, row in enumerate(self.rows):
            if row.request.sampling.temperature > 0:
                sampled.setdefault(id(row.request), (row.request, []))[1].append(i)
        for request, rows in sampled.values():
            at = torch.tensor(rows, dtype=torch.long, device=logits.device)
            tokens[at], logps[at] = sample(logits[at], request.sampling, request.rng)
        return tokens, logps

    def finished(self, row: _Row, now: float) -> bool:
        """Whether ``row`` is done (then its choice is made); streams its new text when its
        first piece is still to go or ``stream_interval_s`` has passed since its last."""
        request = row.request
        pending, tokenizer = request.pending, request.generator.tokenizer
        ended = row.ids[-1] in request.stops
        full = len(row.ids) >= pending.max_new_tokens
        due = pending.stream and (
            row.sent == 0 or now - row.streamed_at >= self.server.stream_interval_s
        )
        text: str | None = None
        if due or pending.stop:
            text = _decoded(tokenizer, row.ids)
            ended = ended or first_stop(text, pending.stop) >= 0
        if not (ended or full):
            if due and text is not None:
                self.stream(row, _settled(text, pending.stop), now)
            return False
        if text is None:
            text = _decoded(tokenizer, row.ids)
        row.made = choice(tokenizer, text, row.ids, row.logprobs,
                          row.ids[-1] not in request.stops, pending)  # fmt: skip
        if pending.stream:
            self.stream(row, row.made["text"], now)
        if all(r.made is not None for r in request.rows):
            self.answer(request)
        return True

    def stream(self, row: _Row, text: str, now: float) -> None:
        """The text ``row`` added since its last piece and, when asked, the log-probabilities
        of the tokens that text completes (a token is sent once all its text is)."""
        if len(text) <= row.sent:
            return
        event: dict[str, Any] = {"index": row.index, "text": text[row.sent :]}
        pending, tokenizer = row.request.pending, row.request.generator.tokenizer
        if pending.logprobs and tokenizer is not None:
            tokens, values = [], []
            while row.scored < len(row.ids):
                token = tokenizer.decode([row.ids[row.scored]], skip_special_tokens=True)
                if row.scored_chars + len(token) > len(text):
                    break
                tokens.append(token)
                values.append(float(row.logprobs[row.scored]))
                row.scored, row.scored_chars = row.scored + 1, row.scored_chars + len(token)
            event["logprobs"] = {"tokens": tokens, "token_logprobs": values}
        pending.events.put(event)
        row.sent, row.streamed_at = len(text), now

    def answer(self, request: _Admitted) -> None:
        pending, now = request.pending, time.monotonic()
        pending.choices = [row.made for row in request.rows if row.made is not None]
        pending.prompt_tokens = request.prompt_tokens
        pending.completion = pending.choices[0]["text"]
        pending.output_tokens = sum(c["output_tokens"] for c in pending.choices)
        pending.truncated = pending.choices[0]["finish_reason"] == "length"
        pending.queue_ms = (request.started - pending.received) * 1000
        pending.generation_ms = (now - request.started) * 1000
        pending.batch_size = request.batch_size
        self.server._batch_seconds.append(now - request.started)
        self.server._finish([pending])

    def fail_all(self, error: str) -> None:
        """Answer every request in the batch with ``error`` and start an empty batch."""
        requests = {id(row.request): row.request.pending for row in self.rows}
        self.rows, self.logits = [], None
        self.batch = RunningBatch(self.model)
        if requests:
            self.server._finish(list(requests.values()), error=error)


def _decoded(tokenizer: Any, ids: list[int]) -> str:
    """``ids`` as text, special tokens left out, as ``finish_rollout`` decodes."""
    return str(tokenizer.decode(ids, skip_special_tokens=True))


def _settled(text: str, stops: tuple[str, ...]) -> str:
    """What of ``text`` can be streamed already: not a character that may still be half
    decoded, nor an end that may be the start of a stop string."""
    text = text.rstrip("\ufffd")
    hold = 0
    for stop in stops:
        for size in range(min(len(stop) - 1, len(text)), hold, -1):
            if text.endswith(stop[:size]):
                hold = size
                break
    return text[: len(text) - hold]


def _groups(batch: list[Pending]) -> list[list[Pending]]:
    """The batch split by sampling settings (and seed and encoding), each group generated
    together."""
    groups: dict[tuple[Any, ...], list[Pending]] = {}
    for p in batch:
        key = (p.max_new_tokens, p.temperature, p.top_p, p.n, p.seed, p.encoding)
        groups.setdefault(key, []).append(p)
    return list(groups.values())


def _choice(generator: Generator, rollout: Any, row: int, pending: Pending) -> dict[str, Any]:
    """Completion ``row`` of ``rollout`` as ``choice`` makes it."""
    length = int(rollout.completion_mask[row].sum())
    logprobs = None if rollout.logprobs is None else rollout.logprobs[row, :length].tolist()
    return choice(
        getattr(generator, "tokenizer", None), rollout.texts[row],
        rollout.completion_ids[row, :length].tolist(), logprobs, bool(rollout.truncated[row]),
        pending,
    )  # fmt: skip


def choice(
    tokenizer: Any,
    text: str,
    ids: list[int],
    logprobs: list[float] | None,
    truncated: bool,
    pending: Pending,
) -> dict[str, Any]:
    """A completion (``text`` from token ``ids``, stop token included), cut before
    ``pending``'s first stop string, with its tokens' log-probabilities when asked (and there
    is a tokenizer to name them)."""
    cut = first_stop(text, pending.stop)
    truncated = truncated and cut < 0
    made: dict[str, Any] = {
        "text": text if cut < 0 else text[:cut], "output_tokens": len(ids),
        "finish_reason": "length" if truncated else "stop",
    }  # fmt: skip
    if tokenizer is None or not (pending.logprobs or cut >= 0):
        return made
    tokens = [tokenizer.decode([i], skip_special_tokens=True) for i in ids]
    if cut >= 0:  # the tokens the kept text is made of
        kept, seen = 0, 0
        while kept < len(tokens) and seen < cut:
            seen += len(tokens[kept])
            kept += 1
        tokens, made["output_tokens"] = tokens[:kept], kept
    if pending.logprobs and logprobs is not None:
        values = logprobs[: len(tokens)]
        made["logprobs"] = {"tokens": tokens, "token_logprobs": [float(v) for v in values]}
    return made


def first_stop(text: str, stops: tuple[str, ...]) -> int:
    """Where the first of ``stops`` starts in ``text``; -1 when none is there."""
    return min((at for at in (text.find(s) for s in stops) if at >= 0), default=-1)


# --- HTTP -------------------------------------------------------------------------------------


def sign(secret: str, method: str, path: str, body: bytes, now: float | None = None) -> str:
    """The ``SIGNATURE_HEADER`` value for a request: ``t=<unix s>,v1=<hex HMAC-SHA256>`` over
    its time, method, path and body. The secret itself never travels with a request, and a
    signature proves nothing about another body or, after ``SIGNATURE_MAX_AGE_S``, anything."""
    stamp = int(time.time() if now is None else now)
    return f"t={stamp},v1={_mac(secret, stamp, method, path, body)}"


def _mac(secret: str, stamp: int, method: str, path: str, body: bytes) -> str:
    message = f"{stamp}\n{method.upper()}\n{path}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def _stamp(header: str | None, now: float) -> tuple[int, str] | None:
    """(time, MAC) of a signature header that is well formed and fresh; None otherwise."""
    parts = dict(p.split("=", 1) for p in (header or "").split(",") if "=" in p)
    stamp, mac = parts.get("t", ""), parts.get("v1", "")
    if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12 and len(mac) == 64):
        return None
    if abs(int(stamp) - now) > SIGNATURE_MAX_AGE_S:
        return None
    return int(stamp), mac


def signature_valid(
    secret: str, header: str | None, method: str, path: str, body: bytes, now: float | None = None
) -> bool:
    """Whether ``header`` signs this request with ``secret`` within ``SIGNATURE_MAX_AGE_S``
    (compared in constant time, so the MAC cannot be guessed byte by byte)."""
    found = _stamp(header, time.time() if now is None else now)
    if found is None:
        return False
    stamp, mac = found
    return hmac.compare_digest(mac.encode(), _mac(secret, stamp, method, path, body).encode())


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Limits:
    max_prompt_chars: int = 20_000
    max_new_tokens: int = 512
    max_timeout_s: float = 300.0


class _Listener(ThreadingHTTPServer):
    """A thread per connection, with a listen backlog a burst of clients fits in: at the
    standard library's 5, the connections that 64 clients open at once overflowed it while
    the generation thread held the interpreter, and each dropped one waited a second for its
    SYN to be sent again (the platform's pool then keeps them open)."""

    request_queue_size = 1024
    daemon_threads = True


class ServingHTTP:
    """``server`` behind ``POST /generate`` and ``GET /health`` on ``host:port`` (0: any free
    port; ``address`` says which). With ``secret``, every request must be signed with it
    (``sign``); without one, only a loopback ``host`` is allowed."""

    def __init__(
        self,
        server: BatchingServer,
        host: str = "127.0.0.1",
        port: int = 0,
        limits: Limits = Limits(),
        describe: Callable[[], dict[str, Any]] | None = None,
        secret: str | None = None,
    ) -> None:
        if not secret and not _is_loopback(host):
            raise ValueError(f"a server without a secret listens on loopback only, not {host!r}")
        self.server = server
        self.limits = limits
        self.secret = secret or None
        self.describe = describe or dict
        handler = type("Handler", (_Handler,), {"serving": self})
        self.httpd = _Listener((host, port), handler)
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name="serving-http", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def health(self) -> dict[str, Any]:
        return {
            "ready": True,
            "queued": self.server.queued,
            "max_queue": self.server.max_queue,
            "max_batch": self.server.max_batch,
            "served": self.server.served,
            "failed": self.server.failed,
            "decode_steps": self.server.decode_steps,
            "decoded_rows": self.server.decoded_rows,
            "prefills": self.server.prefills,
            **self.describe(),
        }

    def parse(self, body: Any) -> tuple[Pending, float]:
        """The request in ``body``, and how long its caller waits; ValueError naming the field."""
        if not isinstance(body, dict):
            raise ValueError("body: expected a JSON object")
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            raise ValueError("prompt: expected a non-empty string")
        if len(prompt) > self.limits.max_prompt_chars:
            raise ValueError(f"prompt: longer than {self.limits.max_prompt_chars} characters")
        tokens = body.get("max_new_tokens", 32)
        if (
            isinstance(tokens, bool)
            or not isinstance(tokens, int)
            or not 1 <= tokens <= self.limits.max_new_tokens
        ):
            raise ValueError(
                f"max_new_tokens: expected an integer from 1 to {self.limits.max_new_tokens}"
            )
        temperature = body.get("temperature", 0.0)
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, int | float)
            or not 0 <= temperature <= 5
        ):
            raise ValueError("temperature: expected a number from 0 to 5")
        timeout = body.get("timeout_s", 30.0)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not 0 < timeout <= self.limits.max_timeout_s
        ):
            raise ValueError(
                f"timeout_s: expected a number above 0, at most {self.limits.max_timeout_s}"
            )
        meta = body.get("meta") or {}
        if not isinstance(meta, dict):
            raise ValueError("meta: expected an object")
        if body.get("messages") is not None:
            prompt = Conversation(prompt, _objects(body, "messages", MAX_TURNS),
                                  _objects(body, "tools", MAX_TOOLS))  # fmt: skip
        pending = Pending(
            prompt, tokens, float(temperature), meta, bool(body.get("shadow")),
            top_p=_number(body, "top_p", 1.0, 0.0, 1.0), n=_whole(body, "n", 1, 1, MAX_N),
            seed=_whole(body, "seed", None, 0, MAX_SEED), stop=_stops(body.get("stop")),
            logprobs=body.get("logprobs", False) is True, encoding=_encoding(body.get("encoding")),
            stream=body.get("stream", False) is True and not body.get("shadow"),
        )  # fmt: skip
        return pending, float(timeout)


def _merged(events: list[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """Streamed pieces with each run of one completion's pieces as one (their text and
    log-probabilities joined): what came while the last write went out, in fewer lines."""
    out: list[dict[str, Any]] = []
    for event in events:
        if event is None:
            continue
        last = out[-1] if out else None
        if last is None or last.get("index") != event.get("index") or "index" not in event:
            out.append(dict(event))
            continue
        last["text"] += event["text"]
        if "logprobs" in event:
            before = last.get("logprobs") or {"tokens": [], "token_logprobs": []}
            added = event["logprobs"]
            last["logprobs"] = {
                "tokens": [*before["tokens"], *added["tokens"]],
                "token_logprobs": [*before["token_logprobs"], *added["token_logprobs"]],
            }
    return out


def _objects(body: Mapping[str, Any], name: str, most: int) -> list[dict[str, Any]]:
    """A list of at most ``most`` JSON objects (none when absent); ValueError naming it."""
    value = body.get(name) or []
    if not isinstance(value, list) or len(value) > most:
        raise ValueError(f"{name}: expected a list of at most {most} objects")
    if not all(isinstance(v, dict) for v in value):
        raise ValueError(f"{name}: expected a list of objects")
    return value


def _number(body: Mapping[str, Any], name: str, default: float, low: float, high: float) -> float:
    """A number in (low, high]; ValueError naming ``name``."""
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low < value <= high:
        raise ValueError(f"{name}: expected a number above {low:g}, at most {high:g}")
    return float(value)


def _whole(body: Mapping[str, Any], name: str, default: Any, low: int, high: int) -> Any:
    value = body.get(name, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name}: expected an integer from {low} to {high}")
    return value


def _stops(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if (
        not isinstance(value, list)
        or len(value) > MAX_STOPS
        or not all(isinstance(s, str) and 0 < len(s) <= MAX_STOP_CHARS for s in value)
    ):
        raise ValueError(
            f"stop: expected at most {MAX_STOPS} non-empty strings of at most "
            f"{MAX_STOP_CHARS} characters"
        )
    return tuple(value)


def _encoding(value: Any) -> tuple[str, str | None] | None:
    """(kind, system prompt) from ``{"kind": "raw" | "chat", "system_prompt": ...}``."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("kind") not in ("raw", "chat"):
        raise ValueError('encoding: expected {"kind": "raw" or "chat", "system_prompt": ...}')
    system = value.get("system_prompt")
    if system is not None and (not isinstance(system, str) or len(system) > 20_000):
        raise ValueError("encoding.system_prompt: expected a string of at most 20000 characters")
    if value["kind"] == "raw" and system:
        raise ValueError("encoding.system_prompt: a raw prompt has no system turn")
    return str(value["kind"]), system or None


class _Handler(BaseHTTPRequestHandler):
    serving: ServingHTTP
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm on, the second waits
    # for the client's delayed ACK (tens of milliseconds a request).
    disable_nagle_algorithm = True
    timeout = SOCKET_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        logger.debug("serving.http " + format, *args)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path.rstrip("/") != "/health":
            self._send(HTTPStatus.NOT_FOUND, {"detail": f"no route {self.path}"})
        elif self._authentic(b""):
            self._send(HTTPStatus.OK, self.serving.health())

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        if self.path.rstrip("/") != "/generate":
            self._send(HTTPStatus.NOT_FOUND, {"detail": f"no route {self.path}"}, close=True)
            return
        body = self._body()
        if body is None or not self._authentic(body):
            return
        try:
            pending, timeout = self.serving.parse(json.loads(body or b"null"))
        except (ValueError, UnicodeDecodeError) as exc:
            self._send(HTTPStatus.BAD_REQUEST, {"detail": str(exc)})
            return
        self._answer(pending, timeout)

    def _body(self) -> bytes | None:
        """The request's body, read up to its checked ``Content-Length``; None once refused.

        The length is checked before anything is read: a negative one would read until the
        client hangs up, and an unread body must not be taken for the next request, so a
        refusal here closes the connection."""
        if self.headers.get("Transfer-Encoding") is not None:
            self._send(HTTPStatus.LENGTH_REQUIRED, {"detail": "Content-Length: required "
                       "(a chunked body is not accepted)"}, close=True)  # fmt: skip
            return None
        given = self.headers.get_all("Content-Length") or ["0"]
        value = given[0].strip()
        if len(given) > 1 or not (value.isascii() and value.isdigit()):
            detail = "Content-Length: expected one whole number of bytes"
            self._send(HTTPStatus.BAD_REQUEST, {"detail": detail}, close=True)
            return None
        if len(value) > len(str(MAX_BODY_BYTES)) or int(value) > MAX_BODY_BYTES:
            detail = f"Content-Length: the body is limited to {MAX_BODY_BYTES} bytes"
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"detail": detail}, close=True)
            return None
        if self.serving.secret and _stamp(self.headers.get(SIGNATURE_HEADER), time.time()) is None:
            self._refuse()  # before reading a body nobody vouched for
            return None
        length = int(value)
        try:
            body = self.rfile.read(length)
        except TimeoutError:
            self._send(HTTPStatus.REQUEST_TIMEOUT, {"detail": "the body never came"}, close=True)
            return None
        if len(body) != length:
            self.close_connection = True  # the client hung up before sending it all
            return None
        return body

    def _authentic(self, body: bytes) -> bool:
        """Signed with the server's secret (or the server has none); a 401 otherwise."""
        secret = self.serving.secret
        header = self.headers.get(SIGNATURE_HEADER)
        if secret is None or signature_valid(secret, header, self.command, self.path, body):
            return True
        self._refuse()
        return False

    def _refuse(self) -> None:
        detail = f"a request must be signed by the platform ({SIGNATURE_HEADER})"
        self._send(HTTPStatus.UNAUTHORIZED, {"detail": detail}, close=True)

    def _answer(self, pending: Pending, timeout: float) -> None:
        try:
            self.serving.server.submit(pending)
        except QueueFull as full:
            headers = {"Retry-After": str(int(full.retry_after_s))}
            self._send(HTTPStatus.TOO_MANY_REQUESTS, {"detail": str(full)}, headers)
            return
        if pending.shadow:
            self._send(HTTPStatus.ACCEPTED, {"detail": "queued"})
            return
        if pending.stream:
            self._stream(pending, timeout)
            return
        if not pending.done.wait(timeout):
            pending.meta = {**pending.meta, "abandoned": True}
            detail = f"no answer within {timeout:g} s"
            self._send(HTTPStatus.GATEWAY_TIMEOUT, {"detail": detail})
            return
        if pending.error is not None:
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, {"detail": pending.error})
            return
        self._send(HTTPStatus.OK, pending.answer())

    def _stream(self, pending: Pending, timeout: float) -> None:
        """The answer as chunked JSON lines: ``{"index", "text"}`` as each completion grows,
        then the whole answer with ``"done": true`` (or ``{"error", "status"}``)."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        deadline = time.monotonic() + timeout
        while True:
            try:
                event = pending.events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pending.meta = {**pending.meta, "abandoned": True}
                event = {"error": f"no answer within {timeout:g} s", "status": 504}
            events = [event]
            while events[-1] is not None and not pending.events.empty():
                events.append(pending.events.get_nowait())  # what came meanwhile, in one write
            last = events.pop()
            pieces = _merged(events)
            if last is None:
                last = {"done": True, **pending.answer()}
                if pending.error is not None:
                    last = {"error": pending.error, "status": 500}
            lines = [*pieces, last]
            try:
                self._chunk(b"".join(json.dumps(e).encode() + b"\n" for e in lines))
                if "index" not in last:
                    self._chunk(b"")
                    return
            except OSError:  # the platform hung up; the answer is still logged
                self.close_connection = True
                return

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _send(
        self,
        status: HTTPStatus,
        body: dict[str, Any],
        headers: Mapping[str, str] | None = None,
        close: bool = False,
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)
