"""The OpenAI-compatible endpoints: ``/v1/chat/completions``, ``/v1/completions`` and
``/v1/models``, the deployment's slug as the model name, a team's API token as the key.

This path leaves out the REST machinery on purpose: a request costs the web process an
authentication from a cache (``CALLER_CACHE_S``), a route from a cache
(``routing.route``, ``SERVING_ROUTE_CACHE_S``), one thread hop for both, and a signed POST
to the replica over a kept-alive connection from the event loop (``upstream``). Answers come
back whole or as server-sent events. The request log is not written here: the replica writes
each answer's row off its generation thread from what this process routed and signed (its
format drift too); what never reached a replica is logged on a thread nobody waits for.

Routing is the deployment's: a split canary's share and sticky keys (OpenAI's ``user``
field), shadow copies, a lost candidate pausing its canary. Chat requests are encoded in the
model version's recorded format (its chat template and system prompt); a request that would
be served otherwise (a completion's raw prompt for a chat model, a system message the model
was not trained with) is answered, with what differs in the log's ``format_warnings`` and in
the answer's ``crucible.format_warnings``.

A token bound to another team, or a caller outside the deployment's team, gets 404
``model_not_found``: a model of another team does not exist for it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass, replace
from typing import Any

from channels.db import DatabaseSyncToAsync
from django.conf import settings

from crucible.accounts import services as accounts
from crucible.accounts.models import hash_token
from experiments.model_format import ModelFormat, differences
from training.serving import SIGNATURE_HEADER, sign

from ..models import CanaryMode, Deployment, ReplicaRole
from ..services import canaries, deployments, serving
from . import protocol, tool_output
from .protocol import ApiError, Ask
from .upstream import Upstream

logger = logging.getLogger(__name__)
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Events = AsyncGenerator[dict[str, Any], None]
Body = dict[str, Any] | list[bytes] | AsyncIterator[bytes]

CALLER_CACHE_S = 2.0
"""How long a token's lookup is kept: a revoked or expired token is refused within this."""
MAX_CACHED = 10_000
MAX_BODY_BYTES = 256 * 1024
"""A request body read at most (a prompt is at most SERVING_MAX_PROMPT_CHARS characters)."""
PATHS = {"/v1/chat/completions": protocol.CHAT, "/v1/completions": protocol.TEXT}


@dataclass(frozen=True)
class Caller:
    user_id: int
    team_ids: frozenset[int]


def _in_thread(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """``fn`` on a worker thread (not one shared thread), its database connection given back."""
    return DatabaseSyncToAsync(fn, thread_sensitive=False)


class OpenAIApp:
    """The ASGI app under ``/v1/``."""

    def __init__(self) -> None:
        self.upstream = Upstream()
        self.callers: dict[str, tuple[float, Caller | str]] = {}
        self.deployments: dict[tuple[frozenset[int], str], tuple[float, Deployment | None]] = {}
        self.background: set[asyncio.Future[Any]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            status, body, headers = await self.handle(scope, receive)
        except ApiError as refused:
            await _send_json(send, refused.status, refused.body(), refused.headers)
            return
        except Exception:  # noqa: BLE001 - every answer is in OpenAI's shape, a fault too
            logger.exception("openai.failed", extra={"path": scope.get("path")})
            fault = ApiError(500, "the server failed to answer; it is logged", None, "server_error")
            await _send_json(send, 500, fault.body())
            return
        if isinstance(body, list):
            await _send_events(send, body, headers)
        elif not isinstance(body, dict):
            await _send_stream(send, body, headers)
        else:
            await _send_json(send, status, body, headers)

    async def handle(self, scope: Scope, receive: Receive) -> tuple[int, Body, dict[str, str]]:
        path, method = scope["path"].rstrip("/"), scope["method"]
        kind = PATHS.get(path)
        if kind is None and not path.startswith("/v1/models"):
            raise ApiError(404, f"no route {path}", None, "unknown_url")
        wanted = "POST" if kind else "GET"
        if method != wanted:
            raise ApiError(405, f"{path} answers {wanted} only", None, "method_not_allowed",
                           {"Allow": wanted})  # fmt: skip
        caller = await self.caller(scope)
        if kind is None:
            return 200, await self.models(caller, path.removeprefix("/v1/models")), {}
        raw = await _body(receive)
        ask = protocol.parse(kind, raw, settings.SERVING_MAX_PROMPT_CHARS)
        return await self.complete(caller, ask)

    # --- who asks, and for which deployment -------------------------------------------------

    async def caller(self, scope: Scope) -> Caller:
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1").split()
        if len(header) != 2 or header[0].lower() != "bearer":
            raise ApiError(401, "no API key: send 'Authorization: Bearer <your Crucible API "
                           "token>'", None, "invalid_api_key")  # fmt: skip
        key = hash_token(header[1])
        now = time.monotonic()
        found = self.callers.get(key)
        if found is None or found[0] <= now:
            if len(self.callers) >= MAX_CACHED:
                self.callers.clear()
            found = (now + CALLER_CACHE_S, await _in_thread(_lookup)(header[1]))
            self.callers[key] = found
        if isinstance(found[1], str):
            raise ApiError(401, f"incorrect API key: {found[1]}", None, "invalid_api_key")
        return found[1]

    def deployment(self, caller: Caller, model: str) -> Deployment:
        """The deployment ``model`` names among the caller's teams (runs on a thread)."""
        key, now = (caller.team_ids, model), time.monotonic()
        found = self.deployments.get(key)
        if found is None or found[0] <= now:
            if len(self.deployments) >= MAX_CACHED:
                self.deployments.clear()
            found = (now + settings.SERVING_ROUTE_CACHE_S, _find(caller.team_ids, model))
            self.deployments[key] = found
        if found[1] is None:
            raise ApiError(404, f"The model '{model}' does not exist or you do not have access "
                           "to it.", "model", "model_not_found")  # fmt: skip
        return found[1]

    async def models(self, caller: Caller, rest: str) -> dict[str, Any]:
        listed = await _in_thread(_models)(caller.team_ids)
        if not rest:
            return {"object": "list", "data": listed}
        wanted = rest.removeprefix("/")
        for model in listed:
            if model["id"] == wanted:
                return model
        raise ApiError(404, f"The model '{wanted}' does not exist or you do not have access "
                       "to it.", "model", "model_not_found")  # fmt: skip

    # --- answering --------------------------------------------------------------------------

    async def complete(self, caller: Caller, ask: Ask) -> tuple[int, Body, dict[str, str]]:
        received = time.time()
        deployment, routed = await _in_thread(self.route)(caller, ask)
        prompt, encoding, warnings = encoded(deployment, ask)
        meta = {
            "request_id": routed.request_id, "received_at": received, "key": ask.key,
            "family": "", "task": "", "expected": None, "verifier_version": None,
            "judged_against": "", "format_warnings": warnings,
            "canary": routed.canary.pk if routed.canary else None,
            "step": routed.canary.step if routed.canary else None, "side": routed.side,
            "free_verifier": serving.reference_free_verifier(deployment, routed.canary),
        }  # fmt: skip
        payload = {
            "prompt": prompt, "max_new_tokens": ask.max_tokens or deployment.max_new_tokens,
            "temperature": deployment.temperature if ask.temperature is None else ask.temperature,
            "top_p": ask.top_p, "n": ask.n, "seed": ask.seed, "stop": list(ask.stop),
            "logprobs": ask.logprobs, "encoding": encoding, "timeout_s": deployment.timeout_s,
            "meta": meta, "stream": ask.stream,
        }  # fmt: skip
        if ask.turns:  # a whole conversation: the replica's chat template renders every turn
            payload |= {"messages": list(ask.turns), "tools": list(ask.tools)}
        outcome, replica, events = await self.forward(deployment, routed, payload)
        if outcome.status != 200:
            self.later(serving.log_failure, deployment, replica, prompt, _logged(ask), meta,
                       outcome)  # fmt: skip
            raise _refusal(outcome, routed.request_id)
        canary = routed.canary
        if canary is not None and canary.mode == CanaryMode.SHADOW and meta["side"] == "production":
            self.shadow(canary, payload, meta)
        headers = {"x-request-id": routed.request_id}
        if events is not None:
            head = _answered(deployment, ask, routed.request_id, {"choices": []}, replica, meta)
            return 200, self.relay(deployment, ask, head, replica, events), headers
        answered = _answered(deployment, ask, routed.request_id, outcome.body, replica, meta)
        tools = tool_output.offered(ask.tools)
        if not ask.stream:
            if ask.kind == protocol.CHAT:
                return 200, protocol.chat_body(answered, tools), headers
            return 200, protocol.text_body(answered), headers
        chunks = protocol.chunks(ask.kind, answered, ask.include_usage, tools)
        return 200, [*map(protocol.event, chunks), protocol.DONE], headers

    def route(self, caller: Caller, ask: Ask) -> tuple[Deployment, serving.Routed]:
        deployment = self.deployment(caller, ask.model)
        if deployment.stopped:
            raise ApiError(409, f"deployment {deployment.slug!r} is stopped; start it to serve "
                           "again", "model", "deployment_stopped")  # fmt: skip
        return deployment, serving.choose(deployment, ask.key)

    async def forward(
        self, deployment: Deployment, routed: serving.Routed, payload: dict[str, Any]
    ) -> tuple[serving.Outcome, Any, Events | None]:
        """The replica's outcome (and its events, when it streams them); a lost candidate
        pauses its canary and production answers."""
        replica = routed.replica
        if replica is not None and routed.side == ReplicaRole.CANDIDATE:
            outcome, events = await self.post(deployment, replica, payload)
            if not (outcome.status in (502, 503) and outcome.body.get("lost")):
                return outcome, replica, events
            assert routed.canary is not None
            self.later(canaries.candidate_lost, routed.canary, outcome.body["detail"])
            replica = routed.production
            payload["meta"]["side"] = ReplicaRole.PRODUCTION
        if replica is None:
            why = await _in_thread(serving.unavailable_reason)(deployment)
            return serving.Outcome(503, {"detail": why}, {"Retry-After": "5"}), None, None
        outcome, events = await self.post(deployment, replica, payload)
        if outcome.status in (502, 503) and outcome.body.get("lost"):
            self.later(deployments.mark_lost, replica, outcome.body["detail"])
        return outcome, replica, events

    async def post(
        self, deployment: Deployment, replica: Any, payload: Any
    ) -> tuple[serving.Outcome, Events | None]:
        data = json.dumps(payload).encode()
        signed = {SIGNATURE_HEADER: sign(replica.secret, "POST", "/generate", data)}
        try:
            answer, events = await self.upstream.open(
                f"{replica.address}/generate", data, signed, deployment.timeout_s + 5
            )
        except TimeoutError:
            why = f"no answer within {deployment.timeout_s:g} s"
            return serving.Outcome(504, {"detail": why}), None
        except OSError as lost:
            why = f"the {replica.role} replica's worker is gone ({type(lost).__name__}: {lost})"
            return serving.Outcome(503, {"detail": why, "lost": True}, {"Retry-After": "5"}), None
        headers = {"Retry-After": answer.retry_after} if answer.retry_after else {}
        if events is not None:
            return serving.Outcome(answer.status, {}, headers), events
        return serving.Outcome(answer.status, serving.json_object(answer.body), headers), None

    async def relay(
        self,
        deployment: Deployment,
        ask: Ask,
        head: protocol.Answered,
        replica: Any,
        events: Events,
    ) -> AsyncIterator[bytes]:
        """The replica's streamed pieces as server-sent chunks as they come, then each
        choice's finish, the usage when asked, and ``[DONE]``. A replica that fails or goes
        quiet mid-stream ends it with an error event in OpenAI's shape."""
        opened: set[int] = set()
        scored: dict[int, tuple[int, int]] = {}  # per choice: tokens and characters scored
        # With tools offered, text that may be a tool call waits for the end (and every
        # log-probability goes with the finish, since held text has none of its own).
        held: dict[int, tool_output.HeldText] | None = {} if ask.tools else None
        prefix = protocol.chunk_prefix(ask.kind, head)
        try:
            async for event in events:
                if "index" in event:
                    index = int(event["index"])
                    count, chars = scored.get(index, (0, 0))
                    found = event.get("logprobs") if ask.logprobs and held is None else None
                    text = str(event["text"])
                    if held is not None:
                        text = held.setdefault(index, tool_output.HeldText()).feed(text)
                        if not text:
                            continue
                    if found is None and index in opened:  # most pieces: only the text is new
                        yield protocol.text_event(ask.kind, prefix, index, text)
                        continue
                    chunk = protocol.piece(ask.kind, head, index, text,
                                           first=index not in opened, scored=found,
                                           before=chars)  # fmt: skip
                    if found:
                        tokens = [str(t) for t in found.get("tokens") or ()]
                        scored[index] = (count + len(tokens), chars + sum(map(len, tokens)))
                    if not opened:
                        chunk["crucible"] = head.extra
                    opened.add(index)
                    yield protocol.event(chunk)
                    continue
                if not event.get("done"):
                    raise ApiError(int(event.get("status") or 502), str(event.get("error")),
                                   None, "replica_error")  # fmt: skip
                answered = replace(head, choices=list(event.get("choices") or []),
                                   prompt_tokens=int(event.get("prompt_tokens") or 0))  # fmt: skip
                streamed = {i: count for i, (count, _) in scored.items()}
                for chunk in _endings(ask, answered, opened, streamed, held or {}):
                    yield protocol.event(chunk)
                yield protocol.DONE
                return
            raise ApiError(502, "the replica ended its answer early", None, "replica_error")
        except (TimeoutError, OSError) as lost:
            yield protocol.event({"error": ApiError(
                504 if isinstance(lost, TimeoutError) else 502,
                f"the replica stopped answering ({type(lost).__name__})", None, "replica_error",
            ).body()["error"]})  # fmt: skip
        except ApiError as failed:
            yield protocol.event({"error": failed.body()["error"]})
        finally:
            await events.aclose()

    def shadow(self, canary: Any, payload: dict[str, Any], meta: dict[str, Any]) -> None:
        """A copy queued on the candidate; nobody waits for it."""
        copy_meta = {**meta, "request_id": str(uuid.uuid4()), "received_at": time.time(),
                     "shadow_of": meta["request_id"], "side": ReplicaRole.CANDIDATE}  # fmt: skip
        copy = {**payload, "shadow": True, "meta": copy_meta}

        async def send() -> None:
            data = json.dumps(copy).encode()
            signed = {SIGNATURE_HEADER: sign(canary.replica.secret, "POST", "/generate", data)}
            try:
                answer = await self.upstream.post(
                    f"{canary.replica.address}/generate", data, signed, serving.SHADOW_TIMEOUT_S
                )
            except TimeoutError:
                return  # it may still be answered; production has answered
            except OSError as lost:
                await _in_thread(canaries.candidate_lost)(canary, f"{type(lost).__name__}: {lost}")
                return
            if answer.status in serving.QUEUE_FULL:  # the candidate's queue is full: dropped
                await _in_thread(canaries.shadow_dropped)(canary)

        self._keep(asyncio.ensure_future(send()))

    def later(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` on a thread, off the request's path (the request log, a lost side)."""
        self._keep(asyncio.ensure_future(_in_thread(fn)(*args)))

    def _keep(self, future: asyncio.Future[Any]) -> None:
        self.background.add(future)
        future.add_done_callback(self._done)

    def _done(self, future: asyncio.Future[Any]) -> None:
        self.background.discard(future)
        if not future.cancelled() and future.exception() is not None:
            logger.error("openai.background_failed", exc_info=future.exception())


# --- on a thread -----------------------------------------------------------------------------


def _lookup(raw: str) -> Caller | str:
    """The token's user and the teams it reaches, or why it is refused."""
    try:
        token = accounts.authenticate_token(raw)
    except accounts.TokenRejected as rejected:
        return str(rejected)
    teams = accounts.teams_visible_to(token.user, token).values_list("pk", flat=True)
    return Caller(token.user_id, frozenset(teams))


def _find(team_ids: frozenset[int], model: str) -> Deployment | None:
    """The deployment named ``slug`` (or ``team/slug``) in ``team_ids``."""
    rows = Deployment.objects.select_related("team", "version__model").filter(team_id__in=team_ids)
    team, _, slug = model.rpartition("/")
    rows = rows.filter(slug=slug, **({"team__slug": team} if team else {}))
    found = list(rows[:2])
    if len(found) > 1:
        raise ApiError(400, f"deployments named '{slug}' exist in several of your teams; name "
                       "one as '<team>/<slug>'", "model", "ambiguous_model")  # fmt: skip
    return found[0] if found else None


def _models(team_ids: frozenset[int]) -> list[dict[str, Any]]:
    rows = list(Deployment.objects.filter(team_id__in=team_ids).select_related("team"))
    shared = {r.slug for r in rows if sum(o.slug == r.slug for o in rows) > 1}
    return [
        {"id": f"{r.team.slug}/{r.slug}" if r.slug in shared else r.slug, "object": "model",
         "created": int(r.created_at.timestamp()), "owned_by": r.team.slug}
        for r in sorted(rows, key=lambda r: (r.slug, r.team.slug))
    ]  # fmt: skip


# --- shaping ---------------------------------------------------------------------------------


def encoded(deployment: Deployment, ask: Ask) -> tuple[str, dict[str, Any] | None, list[str]]:
    """(the prompt sent, the encoding the replica uses instead of the model's own, and what
    differs from the format the model version was trained with)."""
    trained = ModelFormat.from_dict(deployment.version.format)
    # Families' templates are the caller's business here: only the encoding is compared.
    encoding_only = ModelFormat(
        trained.chat_template, trained.add_special_tokens, (), trained.system_prompt,
        trained.reasoning_tags,
    )  # fmt: skip
    chat_model = trained.chat_template is not None
    _check_turns(deployment, trained, ask)
    if ask.kind == protocol.TEXT:
        if not chat_model:
            return ask.prompt, None, []
        # A completion continues the raw text, as OpenAI's completions endpoint does.
        return ask.prompt, {"kind": "raw"}, differences(encoding_only, {"chat_template": None})
    if ask.system is None or (ask.system or None) == trained.system_prompt:
        return ask.prompt, None, []
    drift = differences(encoding_only, {"system_prompt": ask.system})
    if chat_model:
        return ask.prompt, {"kind": "chat", "system_prompt": ask.system}, drift
    # A raw model has no system turn: the system message goes before the prompt.
    return f"{ask.system}\n\n{ask.prompt}", None, drift


def _check_turns(deployment: Deployment, trained: ModelFormat, ask: Ask) -> None:
    """A 400 for a conversation the served model's recorded format cannot take: more than
    one turn for a raw-format model, tools for a chat template that renders none."""
    if not ask.turns:
        return
    version = f"version {deployment.version.number} of {deployment.version.model.name!r}"
    if trained.chat_template is None:
        param = "tools" if ask.tools and len(ask.turns) == 1 else "messages"
        raise ApiError(400, f"{param}: {version} was trained on raw single prompts, with no "
                       "chat template: send one user message (after at most one system "
                       "message) and no tools", param, "unsupported_conversation")  # fmt: skip
    if (ask.tools or ask.has_tool_turns) and not takes_tools(trained.chat_template):
        param = "tools" if ask.tools else "messages"
        raise ApiError(400, f"{param}: the chat template of {version} has no tool turns: "
                       "send no tools, tool calls or tool messages", param,
                       "unsupported_conversation")  # fmt: skip


def takes_tools(chat_template: str) -> bool:
    """Whether a chat template renders tools (reads ``tools`` and a ``tool`` role), as the
    templates of Qwen, Llama 3.1+ and Mistral do."""
    return "tools" in chat_template and "tool" in chat_template.replace("tools", "")


def _logged(ask: Ask) -> serving.Request:
    """The request as the log writes a refused one."""
    return serving.Request(
        prompt=ask.prompt, key=ask.key, family="", task="", expected=None,
        verifier_version=None, max_new_tokens=ask.max_tokens or 0,
        temperature=ask.temperature or 0.0, served_format={},
    )  # fmt: skip


def _answered(
    deployment: Deployment,
    ask: Ask,
    request_id: str,
    body: dict[str, Any],
    replica: Any,
    meta: dict[str, Any],
) -> protocol.Answered:
    choices = body.get("choices") or [{"text": body.get("completion", ""), "finish_reason":
                                       "length" if body.get("truncated") else "stop",
                                       "output_tokens": body.get("output_tokens") or 0}]  # fmt: skip
    prefix = "chatcmpl-" if ask.kind == protocol.CHAT else "cmpl-"
    version = replica.version
    return protocol.Answered(
        id=prefix + request_id.replace("-", ""), created=int(meta["received_at"]),
        model=ask.model, choices=choices, prompt_tokens=int(body.get("prompt_tokens") or 0),
        fingerprint=f"{deployment.slug}-v{version.number}",
        extra={"request_id": request_id, "side": meta["side"],
               "version": {"id": version.pk, "number": version.number, "label": str(version)},
               "format_warnings": meta["format_warnings"]},
    )  # fmt: skip


def _endings(
    ask: Ask,
    answered: protocol.Answered,
    opened: set[int],
    streamed: dict[int, int],
    held: dict[int, tool_output.HeldText],
) -> list[dict[str, Any]]:
    """Each choice's finish (and its opening, if it streamed no text) with the
    log-probabilities its pieces did not carry, after the text it held back as it may have
    been tool calls (sent as ``tool_calls`` when it was), then the usage."""
    out = []
    tools = tool_output.offered(ask.tools)
    for i, choice in enumerate(answered.choices):
        rest = held[i].rest() if i in held else ""
        content, calls = tool_output.split_calls(rest, tools, protocol.call_prefix(answered, i))
        if content or i not in opened:
            out.append(protocol.piece(ask.kind, answered, i, content or "", first=i not in opened))
        if calls:
            out.append(protocol.tool_calls_chunk(answered, i, calls))
        reason = "tool_calls" if calls else None
        out.append(protocol.finish(ask.kind, answered, i, choice, streamed.get(i, 0), reason))
    if out and not opened:
        out[0]["crucible"] = answered.extra
    if ask.include_usage:
        out.append(protocol.usage_chunk(ask.kind, answered))
    return out


REFUSAL_CODES = {409: "conflict", 429: "rate_limit_exceeded", 503: "unavailable",
                 504: "timeout"}  # fmt: skip
"""The error's ``code`` for what a replica answered (429: its queue is full, OpenAI's
``rate_limit_error`` type; the client retries after ``Retry-After``)."""


def _refusal(outcome: serving.Outcome, request_id: str) -> ApiError:
    status = outcome.status if outcome.status in protocol.TYPES else 502
    detail = str(outcome.body.get("detail") or "the replica could not answer")
    code = REFUSAL_CODES.get(status, "replica_error")
    headers = {**outcome.headers, "x-request-id": request_id}
    return ApiError(status, detail, None, code, headers)


# --- ASGI ------------------------------------------------------------------------------------


async def _body(receive: Receive) -> bytes:
    """The request body, refused past MAX_BODY_BYTES as it streams in."""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ApiError(400, "the client went away", None, "disconnected")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ApiError(413, f"the body is limited to {MAX_BODY_BYTES} bytes", None,
                           "body_too_large")  # fmt: skip
        parts.append(chunk)
        if not message.get("more_body"):
            return b"".join(parts)


def _head(status: int, content_type: bytes, headers: dict[str, str]) -> dict[str, Any]:
    sent = [(b"content-type", content_type)]
    sent += [(k.lower().encode(), v.encode("latin-1")) for k, v in headers.items()]
    return {"type": "http.response.start", "status": status, "headers": sent}


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(body).encode()
    head = _head(status, b"application/json", {**(headers or {}), "content-length": str(len(data))})
    await send(head)
    await send({"type": "http.response.body", "body": data})


async def _send_stream(send: Send, events: AsyncIterator[bytes], headers: dict[str, str]) -> None:
    await send(_head(200, b"text/event-stream", {**headers, "cache-control": "no-cache"}))
    async for chunk in events:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


async def _send_events(send: Send, events: list[bytes], headers: dict[str, str]) -> None:
    await send(_head(200, b"text/event-stream", {**headers, "cache-control": "no-cache"}))
    for chunk in events:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


application = OpenAIApp()
