"""Multi-turn rollouts: the model acts, an environment answers, the episode is rewarded.

An episode is one row of a step's batch. Rollouts run a whole batch of episodes at once:
each turn, the next assistant message of every episode still going is generated in one
batch (continuing the exact tokens sampled so far; with the engine's own decoder, on a KV
cache kept across the turns, see `turn_decode`), then every environment answers it; an
episode ends when its environment says so or a limit in `TurnLimits` is reached. The row's
"prompt" is the opening, its "completion" everything after it: assistant tokens (trained on,
`completion_mask` 1, with their sampling log-probs, so the log-prob gap and truncated
importance sampling cover every assistant token) and the environment's tokens (attended to
but masked out of the loss, `Rollout.completion_attention`). The G episodes of one task form
its GRPO group, and the episode's reward trains every assistant turn.

The environment is a plain protocol here (`training` imports nothing of the platform):
messages and tools travel in the OpenAI chat shape, as `tasks_app.environments.base` writes
them, and the platform wraps its `Environment` into `EpisodeEnvironment`. In raw format the
conversation is the messages' text one after another (the built-in tiny model's format); in
chat format it is the tokenizer's chat template, tools included where the template takes
them, each environment turn tokenized as the template renders it after the assistant's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch
from transformers import PreTrainedTokenizerBase

from training.config import SamplingConfig
from training.decode import DecodeGenerator
from training.generation import Generator, Rollout
from training.interfaces import Item, RewardResult
from training.prompting import ADD_SPECIAL_TOKENS, PromptFormat, end_of_turn_ids, split_reasoning
from training.turn_decode import TurnDecoder

ENDED_BY = ("environment", "max_turns", "max_total_tokens")


@dataclass
class EnvTurn:
    """An environment's answer to one assistant message."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    """Chat-shaped messages appended to the conversation (tool results, feedback)."""
    done: bool = False
    error: str | None = None
    """The turn's verdict (`tool_call_parse`, `tool_error`, `invalid_move`...), None if fine."""
    info: dict[str, Any] = field(default_factory=dict)


class EpisodeEnvironment(Protocol):
    """One episode's environment, as the engine drives it."""

    def open(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The opening messages and the tools the model may call (chat shape)."""

    def reply(self, text: str) -> EnvTurn:
        """Answer the assistant's message `text` (its answer part, reasoning cut in chat)."""

    def final_state(self) -> dict[str, Any]:
        """What the verifier judges once the episode is over."""


@dataclass
class EpisodeRecord:
    """A finished episode, as the reward function and the rollout sink see it."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    turns: int
    errors: list[str | None]
    """Per assistant turn: the environment's verdict on it."""
    final_state: dict[str, Any]
    ended_by: str
    """One of `ENDED_BY`."""
    tokens: int = 0
    """Tokens after the opening, the environment's included."""
    assistant_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        # One level of copies: a finished episode's messages are not changed afterwards,
        # and a deep copy of every batch's conversations cost more than their reward.
        return {
            **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)},
            "messages": [dict(m) for m in self.messages],
            "tools": [dict(t) for t in self.tools],
            "errors": list(self.errors),
            "final_state": dict(self.final_state),
        }


EpisodeRewardFn = Callable[[Sequence[Item], Sequence[EpisodeRecord]], list[RewardResult]]
"""`reward_fn(items, episodes) -> results`, one per episode, judged on its final state."""


@dataclass(frozen=True)
class TurnLimits:
    """Bounds on one episode: the values of `tasks_app.environments.base.EpisodeLimits`,
    which the platform passes in (this package may not import it)."""

    max_turns: int = 8
    """Assistant messages at most."""
    max_tokens_per_turn: int = 64
    """Tokens one assistant message may have."""
    max_total_tokens: int = 1024
    """Tokens after the opening, the environment's included; the turn that reaches it is cut
    there and ends the episode."""

    def validate(self) -> None:
        for name in ("max_turns", "max_tokens_per_turn", "max_total_tokens"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"limits.{name}: must be a positive integer")


@dataclass(frozen=True)
class EnvironmentSpec:
    """What a run on episodes needs besides the engine config: how to open an environment
    for a task, how to reward a finished episode, and the limits of one."""

    make: Callable[[Item], EpisodeEnvironment]
    reward_fn: EpisodeRewardFn
    limits: TurnLimits = TurnLimits()


class Conversation:
    """One episode's tokens: the opening, then assistant and environment segments."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        fmt: PromptFormat,
        limit: int,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
    ) -> None:
        self.tokenizer, self.fmt, self.limit, self.tools = tokenizer, fmt, limit, tools
        self.messages = list(messages)
        if fmt.is_chat and fmt.system_prompt and messages and messages[0]["role"] != "system":
            self.messages.insert(0, {"role": "system", "content": fmt.system_prompt})
        self.prompt_ids = self._encode(self._render(self.messages, opening=True))
        self.ids: list[int] = []  # after the opening
        self.trained: list[int] = []  # 1 on assistant tokens
        self.logprobs: list[float] = []
        self.errors: list[str | None] = []
        self.ended_by = ""

    @property
    def context(self) -> list[int]:
        return self.prompt_ids + self.ids

    def add_assistant(self, ids: list[int], logprobs: list[float], text: str) -> None:
        self.ids += ids
        self.trained += [1] * len(ids)
        self.logprobs += logprobs
        self.messages.append({"role": "assistant", "content": text})

    def environment_text(self, messages: list[dict[str, Any]], ended_turn: bool) -> str:
        """Record the environment's messages; the text whose tokens (`add_environment_ids`)
        the loss leaves out. `ended_turn`: the assistant's tokens closed its turn (a stop
        token), else the template's close is written here."""
        before = self.messages
        self.messages = [*before, *messages]
        if self.fmt.is_chat:
            return self._chat_between(before, self.messages, ended_turn)
        return "".join(str(m.get("content") or "") for m in messages)

    def add_environment_ids(self, ids: list[int]) -> None:
        """Append the environment's tokens (those of `environment_text`)."""
        self.ids += ids
        self.trained += [0] * len(ids)
        self.logprobs += [0.0] * len(ids)

    def _chat_between(
        self, before: list[dict[str, Any]], after: list[dict[str, Any]], ended_turn: bool
    ) -> str:
        """What the template writes after the last assistant message up to the next opened
        assistant turn; the close of that message is left out when its tokens wrote it."""
        closed = self._render(before, opening=False)
        text = self._render(after, opening=True)
        if not text.startswith(closed):
            raise ValueError(
                "prompt_format.kind: this chat template renders a conversation differently once "
                "it goes on, so an episode's tokens cannot grow turn by turn"
            )
        close = closed.rpartition(str(before[-1]["content"]))[2]  # "<|im_end|>\n"
        if ended_turn:
            eot = str(self.tokenizer.decode(end_of_turn_ids(self.tokenizer)[:1]))
            close = close.partition(eot)[2] if eot and eot in close else close
        return close + text[len(closed) :]

    def _render(self, messages: list[dict[str, Any]], *, opening: bool) -> str:
        if not self.fmt.is_chat:
            return "".join(str(m.get("content") or "") for m in messages)
        rendered = self.tokenizer.apply_chat_template(
            messages,
            tools=list(self.tools) or None,
            tokenize=False,
            add_generation_prompt=opening,
        )
        assert isinstance(rendered, str)  # tokenize=False renders one conversation
        return rendered

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=ADD_SPECIAL_TOKENS)["input_ids"])


@dataclass
class Played:
    """A batch of finished episodes: their records and their tokens as one rollout."""

    records: list[EpisodeRecord]
    rollout: Rollout


def play(
    generator: Generator,
    tokenizer: PreTrainedTokenizerBase,
    fmt: PromptFormat,
    spec: EnvironmentSpec,
    items: Sequence[Item],
    sampling: SamplingConfig,
    device: torch.device,
) -> Played:
    """Play one episode per item, the whole batch turn by turn (see the module docstring)."""
    limits = spec.limits
    envs = [spec.make(item) for item in items]
    convs = [Conversation(tokenizer, fmt, limits.max_total_tokens, *env.open()) for env in envs]
    active = list(range(len(items)))
    decoder = None
    if isinstance(generator, DecodeGenerator) and items:
        opening = max(len(c.prompt_ids) for c in convs)
        decoder = TurnDecoder(generator, len(items), 2 * (opening + limits.max_total_tokens))
    for turn in range(limits.max_turns):
        if not active:
            break
        room = max(limits.max_total_tokens - len(convs[i].ids) for i in active)
        turn_sampling = dataclasses.replace(
            sampling, max_new_tokens=min(limits.max_tokens_per_turn, room)
        )
        if decoder is not None:  # the cache of the last turn stays: only new tokens are fed
            out = decoder.generate(active, [convs[i].context for i in active], turn_sampling)
        else:
            ids, mask = left_padded([convs[i].context for i in active], tokenizer.pad_token_id)
            out = generator.generate_tokens(ids, mask, turn_sampling)
        last = turn == limits.max_turns - 1
        answered = [
            (i, _take_turn(convs[i], envs[i], out, row, last)) for row, i in enumerate(active)
        ]
        going = [(i, text) for i, text in answered if text is not None]
        # The environment's answers of the whole batch, tokenized in one call.
        encoded = _encode_all(tokenizer, [text for _, text in going])
        active = []
        for (i, _), answer in zip(going, encoded, strict=True):
            convs[i].add_environment_ids(answer)
            if len(convs[i].ids) >= convs[i].limit:
                convs[i].ended_by = "max_total_tokens"
            else:
                active.append(i)
    records = [_record(conv, env) for conv, env in zip(convs, envs, strict=True)]
    return Played(records, _rollout(convs, records, tokenizer, device))


def _take_turn(
    conv: Conversation, env: EpisodeEnvironment, out: Rollout, row: int, last: bool
) -> str | None:
    """Append row `row` of `out` (cut to the room left under `max_total_tokens`) and record
    the environment's answer; the text of that answer's tokens if the episode goes on (the
    caller appends them), else None. The environment's own tokens may pass the total; no
    turn is generated after that."""
    sampled, room = int(out.completion_mask[row].sum()), conv.limit - len(conv.ids)
    n = min(sampled, room)
    cut = n == room
    ids = out.completion_ids[row, :n].tolist()
    logps = out.logprobs[row, :n].tolist() if out.logprobs is not None else [0.0] * n
    text = (
        out.texts[row]
        if n == sampled
        else str(conv.tokenizer.decode(ids, skip_special_tokens=True))
    )
    conv.add_assistant(ids, logps, text)
    reply = env.reply(split_reasoning(text, conv.fmt)[1])
    conv.errors.append(reply.error)
    if reply.done or last or cut:
        conv.messages += reply.messages
        conv.ended_by = "environment" if reply.done else "max_total_tokens" if cut else "max_turns"
        return None
    return conv.environment_text(reply.messages, ended_turn=not bool(out.truncated[row]))


def _encode_all(tokenizer: PreTrainedTokenizerBase, texts: list[str]) -> list[list[int]]:
    if not texts:
        return []
    return [
        list(ids) for ids in tokenizer(texts, add_special_tokens=ADD_SPECIAL_TOKENS)["input_ids"]
    ]


def _record(conv: Conversation, env: EpisodeEnvironment) -> EpisodeRecord:
    return EpisodeRecord(
        messages=conv.messages,
        tools=conv.tools,
        turns=len(conv.errors),
        errors=conv.errors,
        final_state=env.final_state(),
        ended_by=conv.ended_by,
        tokens=len(conv.ids),
        assistant_tokens=sum(conv.trained),
    )


def left_padded(rows: Sequence[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, L) ids padded on the left with `pad_id`, and their attention mask."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        if r:
            ids[i, width - len(r) :] = torch.tensor(r)
            mask[i, width - len(r) :] = 1
    return ids, mask


def _rollout(
    convs: Sequence[Conversation],
    records: Sequence[EpisodeRecord],
    tokenizer: PreTrainedTokenizerBase,
    device: torch.device,
) -> Rollout:
    """The episodes as one rollout: openings left-padded, the rest right-padded."""
    pad = tokenizer.pad_token_id
    prompt_ids, prompt_mask = left_padded([c.prompt_ids for c in convs], pad)
    width = max(1, max(len(c.ids) for c in convs))
    ids = torch.full((len(convs), width), pad, dtype=torch.long)
    trained = torch.zeros((len(convs), width), dtype=torch.long)
    attended = torch.zeros((len(convs), width), dtype=torch.long)
    logprobs = torch.zeros((len(convs), width))
    for i, c in enumerate(convs):
        n = len(c.ids)
        ids[i, :n] = torch.tensor(c.ids, dtype=torch.long)
        trained[i, :n] = torch.tensor(c.trained, dtype=torch.long)
        attended[i, :n] = 1
        logprobs[i, :n] = torch.tensor(c.logprobs)
    return Rollout(
        prompt_ids.to(device),
        prompt_mask.to(device),
        ids.to(device),
        trained.to(device),
        tokenizer.batch_decode(ids, skip_special_tokens=True),
        torch.tensor([r.ended_by != "environment" for r in records], device=device),
        logprobs.to(device),
        None,
        attended.to(device),
    )
