"""How the engine turns a prompt into tokens, and a completion back into an answer.

A `PromptFormat` says it once for a run, and training, evaluation and serving use the same:
- `raw` (the default): each task's prompt text is tokenized as it is, with no chat template
  around it and no special tokens added by the tokenizer;
- `chat`: the tokenizer's chat template around an optional system turn and the task's prompt
  as the user turn, with the assistant turn opened (`add_generation_prompt`); generation then
  stops at the template's end-of-turn token as well as at EOS, and a reasoning section
  (`<think>...</think>` by default) is cut from the completion before the verifier reads the
  answer, and counted on its own in the length metrics.

The platform records the format with every model version (`prompt_encoding`), so a server
that wraps prompts differently is flagged: a policy trained on raw prompts answers worse when
served inside a chat template, and the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transformers import BatchEncoding, GenerationConfig, PreTrainedTokenizerBase

from training.field_spec import setting
from training.interfaces import Item, RewardFn, RewardResult

RAW, CHAT = "raw", "chat"
KINDS = (RAW, CHAT)
DEFAULT_REASONING_TAGS = ("<think>", "</think>")
MAX_SYSTEM_PROMPT_CHARS = 20_000
"""A system prompt is part of every rollout's input: longer than this is a mistake."""
CHAT_TEMPLATE: str | None = None
"""The chat template of the raw format: None, the prompt's text is the whole input."""
ADD_SPECIAL_TOKENS = False
"""Whether the tokenizer adds its special tokens (BOS and the like) to a prompt: never. A
chat template writes the ones its model expects (a BOS, the turn markers) itself."""
_PROBE = "\u2063crucible-end-of-turn-probe\u2063"
"""Assistant text rendered through a chat template to find what the template writes after a
turn (`end_of_turn_ids`): text no real reply contains."""


def _system_prompt_problem(value: str) -> str | None:
    if len(value) > MAX_SYSTEM_PROMPT_CHARS:
        return f"must be at most {MAX_SYSTEM_PROMPT_CHARS} characters"
    return None


def _tags_problem(value: tuple[str, str]) -> str | None:
    opening, closing = value
    if not opening.strip() or not closing.strip():
        return "must be two non-empty tags, the opening one first"
    if opening == closing:
        return "the opening and closing tags must differ"
    return None


@dataclass(frozen=True)
class PromptFormat:
    """How a task's prompt becomes model input, and where the answer starts in a completion."""

    kind: str = setting(RAW, choices=KINDS)
    """`raw`: the prompt text as it is (no template, no special tokens); `chat`: the
    tokenizer's chat template around the system prompt and the prompt as the user's turn."""
    system_prompt: str | None = setting(None, check=_system_prompt_problem)
    """Chat only: the system turn before each prompt; None or empty: no system turn."""
    reasoning_tags: tuple[str, str] = setting(
        DEFAULT_REASONING_TAGS,
        check=_tags_problem,
        message="must be two different non-empty tags, the opening one first",
    )
    """Chat only: the tags around a reasoning section. What the model writes inside them is
    not part of its answer: the verifier reads the text after the closing tag."""

    def problems(self) -> list[tuple[str, str]]:
        """(field, reason) for each value this format cannot take."""
        found = []
        if self.kind not in KINDS:
            found.append(("kind", f"must be one of {', '.join(KINDS)}"))
        if self.system_prompt is not None and (why := _system_prompt_problem(self.system_prompt)):
            found.append(("system_prompt", why))
        if len(self.reasoning_tags) != 2 or (why := _tags_problem(self.reasoning_tags)):
            found.append(("reasoning_tags", why or "must be two tags"))
        if self.kind == RAW and self.system_prompt:
            found.append(("system_prompt", "needs kind chat: a raw prompt has no system turn"))
        return found

    def validate(self) -> None:
        """ValueError naming each field (as `prompt_format.<field>`) this format cannot take."""
        found = self.problems()
        if found:
            raise ValueError("; ".join(f"prompt_format.{name}: {why}" for name, why in found))

    @property
    def is_chat(self) -> bool:
        return self.kind == CHAT


RAW_FORMAT = PromptFormat()


def check_format(tokenizer: PreTrainedTokenizerBase, fmt: PromptFormat) -> None:
    """ValueError naming the field when `fmt` is invalid or the tokenizer cannot apply it."""
    fmt.validate()
    if fmt.is_chat:
        _require_template(tokenizer)
        if not end_of_turn_ids(tokenizer):
            raise ValueError(
                "prompt_format.kind: this tokenizer's chat template ends an assistant turn "
                "with no special token, so a completion could not stop at the end of its turn"
            )


class Conversation(str):
    """A prompt that is a whole chat: its `turns` (user, assistant and tool messages, in the
    shape chat templates read) and the `tools` they may call. In chat format `render` applies
    the template to every turn, the format's system prompt first; as text it is a transcript
    (what a log shows). A raw format has no turns: it refuses more than one."""

    turns: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]

    def __new__(
        cls, text: str, turns: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
    ) -> Conversation:
        made = super().__new__(cls, text)
        made.turns, made.tools = tuple(turns), tuple(tools)
        return made


def render(tokenizer: PreTrainedTokenizerBase, prompt_text: str, fmt: PromptFormat) -> str:
    """The model input for `prompt_text` as text: itself, or the chat template's rendering
    (of every turn, when it is a `Conversation`)."""
    chat = prompt_text if isinstance(prompt_text, Conversation) else None
    if not fmt.is_chat:
        if chat is not None and (len(chat.turns) > 1 or chat.tools):
            raise ValueError("a raw prompt is one turn: this model takes no conversation")
        return prompt_text
    _require_template(tokenizer)
    messages = [{"role": "user", "content": prompt_text}]
    if chat is not None:
        messages = [dict(t) for t in chat.turns]
    if fmt.system_prompt:
        messages.insert(0, {"role": "system", "content": fmt.system_prompt})
    tools: list[Any] | None = None
    if chat is not None and chat.tools:
        tools = [dict(t) for t in chat.tools]
    text = tokenizer.apply_chat_template(
        messages, tools=tools, tokenize=False, add_generation_prompt=True
    )
    assert isinstance(text, str)  # tokenize=False renders one conversation to one string
    return text


def encode(tokenizer: PreTrainedTokenizerBase, prompt_text: str, fmt: PromptFormat) -> list[int]:
    """Token ids of the model input for `prompt_text` in format `fmt`."""
    ids = tokenizer(render(tokenizer, prompt_text, fmt), add_special_tokens=ADD_SPECIAL_TOKENS)
    return list(ids["input_ids"])


def encode_batch(
    tokenizer: PreTrainedTokenizerBase, prompts: Sequence[str], fmt: PromptFormat
) -> BatchEncoding:
    """`prompts` encoded as `encode` does, left-padded into (B, L) `input_ids` and
    `attention_mask` tensors: what every generator feeds the model."""
    texts = [render(tokenizer, p, fmt) for p in prompts]
    return tokenizer(
        texts, return_tensors="pt", padding=True, add_special_tokens=ADD_SPECIAL_TOKENS
    )


def end_of_turn_ids(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """The special tokens the chat template writes to close an assistant turn (`<|im_end|>`,
    `<|eot_id|>`, `<end_of_turn>`), found by rendering a reply and reading what follows it."""
    _require_template(tokenizer)
    turns = [{"role": "user", "content": "?"}, {"role": "assistant", "content": _PROBE}]
    text = tokenizer.apply_chat_template(turns, tokenize=False)
    assert isinstance(text, str)
    after = text.rpartition(_PROBE)[2]
    ids = tokenizer(after, add_special_tokens=False)["input_ids"]
    special = set(tokenizer.all_special_ids)
    return [i for i in ids if i in special]


def stop_token_ids(
    tokenizer: PreTrainedTokenizerBase,
    fmt: PromptFormat,
    generation_config: GenerationConfig | None = None,
) -> list[int]:
    """Tokens that end a completion: the tokenizer's EOS, those the model's generation config
    lists, and, in chat format, the template's end-of-turn tokens."""
    ids: list[int | None] = [tokenizer.eos_token_id]
    listed = None if generation_config is None else generation_config.eos_token_id
    ids += listed if isinstance(listed, list) else [listed]
    if fmt.is_chat:
        ids += end_of_turn_ids(tokenizer)
    return list(dict.fromkeys(i for i in ids if i is not None))


def split_reasoning(text: str, fmt: PromptFormat) -> tuple[str, str]:
    """(reasoning, answer) of a decoded completion.

    Chat format: the reasoning is what stands inside the tags (a template may have opened the
    section in the prompt, so a closing tag alone also ends it) and the answer is what follows
    the last closing tag, as Qwen3's model card reads it; a section never closed (the
    completion was cut off) leaves no answer.
    Raw format, or no tags in the text: no reasoning, the whole text is the answer.
    """
    opening, closing = fmt.reasoning_tags
    if not fmt.is_chat or (opening not in text and closing not in text):
        return "", text
    if closing not in text:
        return text.partition(opening)[2].strip(), ""
    before, _, answer = text.rpartition(closing)
    reasoning = before.partition(opening)[2] if opening in before else before
    return reasoning.strip(), answer.lstrip()


def answers_only(reward_fn: RewardFn, fmt: PromptFormat) -> RewardFn:
    """`reward_fn` judging each completion's answer, its reasoning section left out (the
    reward function itself unchanged in raw format)."""
    if not fmt.is_chat:
        return reward_fn

    def judge(items: Sequence[Item], texts: Sequence[str]) -> list[RewardResult]:
        return reward_fn(items, [split_reasoning(t, fmt)[1] for t in texts])

    return judge


def prompt_encoding(
    fmt: PromptFormat = RAW_FORMAT, tokenizer: PreTrainedTokenizerBase | None = None
) -> dict[str, Any]:
    """The encoding as plain data, as a model version records it: ``{"chat_template",
    "add_special_tokens"}``, and in chat format the template's text (from `tokenizer`), the
    system prompt and the reasoning tags."""
    if not fmt.is_chat:
        return {"chat_template": CHAT_TEMPLATE, "add_special_tokens": ADD_SPECIAL_TOKENS}
    if tokenizer is None:
        raise ValueError("tokenizer: the chat format's encoding names the tokenizer's template")
    return {
        "chat_template": _require_template(tokenizer),
        "add_special_tokens": ADD_SPECIAL_TOKENS,
        "system_prompt": fmt.system_prompt or None,
        "reasoning_tags": list(fmt.reasoning_tags),
    }


def _require_template(tokenizer: PreTrainedTokenizerBase) -> str:
    template = tokenizer.chat_template
    if isinstance(template, dict):  # named templates: the one used when none is named
        template = template.get("default")
    if not template:
        raise ValueError(
            "prompt_format.kind: chat needs a tokenizer with a chat template, and this "
            f"model's tokenizer ({type(tokenizer).__name__}) has none; use kind raw, or a "
            "model whose tokenizer_config.json carries chat_template"
        )
    return str(template)
