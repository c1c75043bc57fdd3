"""A model's prompt format, and what differs when a request or a deployment formats otherwise.

A model version carries the format it was trained with: how a prompt becomes tokens (chat
template, special tokens, in chat format the system prompt and the reasoning tags that set
the answer apart; ``training.prompting``) and, per task family, the prompt template
its tasks were written with and the extractor its verifier took the answer with. Serving a
model with another template, inside a chat template it never saw, or reading its answer with
another extractor silently costs accuracy; ``differences`` says in words what drifted.

Pure: no Django. A served format is a mapping whose keys that are present are compared
(``SERVED_KEYS``); a key left out is not stated, so not compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from training.prompting import CHAT, DEFAULT_REASONING_TAGS, RAW_FORMAT, PromptFormat

SERVED_KEYS = (
    "family",
    "prompt_template",
    "chat_template",
    "add_special_tokens",
    "extract",
    "system_prompt",
    "reasoning_tags",
)
"""What a request or a deployment may state about its format."""
QUOTE_CHARS = 60
"""How much of a template a difference quotes, either side of where the two part."""


@dataclass(frozen=True)
class FamilyFormat:
    family: str
    """The family's slug."""
    prompt_template: str | None
    """The template its prompts were written with; None: the prompts came as written in an
    imported dataset."""
    extract: str
    """The extractor the family's verifier took the answer with."""
    pool_version: int | None = None
    verifier_version: int | None = None


@dataclass(frozen=True)
class ModelFormat:
    chat_template: str | None
    """The chat template around each prompt; None: the raw prompt."""
    add_special_tokens: bool
    families: tuple[FamilyFormat, ...] = field(default_factory=tuple)
    system_prompt: str | None = None
    """Chat format: the system turn before each prompt; None: none."""
    reasoning_tags: tuple[str, str] | None = None
    """Chat format: the tags around the reasoning the answer was read after; None: a raw
    format, whose whole completion is the answer."""

    def to_dict(self) -> dict[str, Any]:
        """Plain data; the chat-only keys only when set, so a raw format's dict is the one
        versions recorded before they existed."""
        data = asdict(self) | {"families": [asdict(f) for f in self.families]}
        for key in ("system_prompt", "reasoning_tags"):
            if data[key] is None:
                del data[key]
        if self.reasoning_tags is not None:
            data["reasoning_tags"] = list(self.reasoning_tags)
        return data

    def prompt_format(self) -> PromptFormat:
        """The engine's format that encodes prompts as this one says: chat (with its system
        prompt and reasoning tags) when it names a chat template, raw otherwise."""
        if self.chat_template is None:
            return RAW_FORMAT
        return PromptFormat(CHAT, self.system_prompt, self.reasoning_tags or DEFAULT_REASONING_TAGS)

    @classmethod
    def from_encoding(
        cls, encoding: Mapping[str, Any], families: tuple[FamilyFormat, ...] = ()
    ) -> ModelFormat:
        """The format of ``training.prompting.prompt_encoding``'s plain data, on ``families``."""
        return cls.from_dict({**encoding, "families": [asdict(f) for f in families]})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelFormat:
        families = tuple(FamilyFormat(**entry) for entry in data.get("families") or ())
        tags = data.get("reasoning_tags")
        return cls(
            data.get("chat_template"),
            bool(data.get("add_special_tokens")),
            families,
            data.get("system_prompt"),
            None if tags is None else (str(tags[0]), str(tags[1])),
        )


def differences(trained: ModelFormat, served: Mapping[str, Any]) -> list[str]:
    """What ``served`` does otherwise than ``trained``, one sentence each; [] when it matches."""
    found = _encoding_differences(trained, served)
    if not trained.families:
        return found
    family, problem = _family_of(trained, served.get("family"))
    if problem:
        return [*found, problem]
    assert family is not None
    if "prompt_template" in served and served["prompt_template"] != family.prompt_template:
        found.append(
            "prompt template differs: "
            + _texts_differ(family.prompt_template, served["prompt_template"])
        )
    if "extract" in served and served["extract"] != family.extract:
        found.append(
            f"answer extraction differs: trained with {family.extract!r}, "
            f"served with {served['extract']!r}"
        )
    return found


def _encoding_differences(trained: ModelFormat, served: Mapping[str, Any]) -> list[str]:
    found = []
    if "chat_template" in served and served["chat_template"] != trained.chat_template:
        found.append(
            f"chat format differs: trained {_chat(trained.chat_template)}, "
            f"served {_chat(served['chat_template'])}"
        )
    if (
        "add_special_tokens" in served
        and served["add_special_tokens"] != trained.add_special_tokens
    ):
        trained_with = "with" if trained.add_special_tokens else "without"
        served_with = "with" if served["add_special_tokens"] else "without"
        found.append(
            f"special tokens differ: trained {trained_with} the tokenizer's special tokens, "
            f"served {served_with} them"
        )
    if "system_prompt" in served and (served["system_prompt"] or None) != trained.system_prompt:
        found.append(
            "system prompt differs: "
            + _texts_differ(trained.system_prompt, served["system_prompt"], "no system prompt")
        )
    if "reasoning_tags" in served and _tags(served["reasoning_tags"]) != trained.reasoning_tags:
        found.append(
            f"reasoning tags differ: trained {_shown_tags(trained.reasoning_tags)}, "
            f"served {_shown_tags(_tags(served['reasoning_tags']))}"
        )
    return found


def _tags(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)


def _shown_tags(tags: tuple[str, ...] | None) -> str:
    return "without a reasoning section" if tags is None else f"with {' '.join(tags)}"


def _family_of(trained: ModelFormat, name: Any) -> tuple[FamilyFormat | None, str | None]:
    """The trained family a served format is about, or why it cannot be told."""
    names = ", ".join(f.family for f in trained.families)
    if name is not None:
        for family in trained.families:
            if family.family == name:
                return family, None
        return None, f"family {name!r} is not one the model was trained on ({names})"
    first = trained.families[0]
    if all((f.prompt_template, f.extract) == (first.prompt_template, first.extract)
           for f in trained.families):  # fmt: skip
        return first, None
    why = f"family not stated: the model was trained on families with different formats ({names})"
    return None, why


def _chat(template: Any) -> str:
    return (
        "on the raw prompt (no chat template)"
        if template is None
        else f"with chat template {_quote(template)}"
    )


def _texts_differ(trained: str | None, served: Any, absent: str = "the prompt as written") -> str:
    """Where two templates part, quoted around that place (`absent`: what None stands for)."""
    if trained is None:
        where = (
            "on the dataset's prompts as written"
            if absent == "the prompt as written"
            else f"with {absent}"
        )
        return f"trained {where}, served with {_quote(served)}"
    if not served:
        return f"trained with {_quote(trained)}, served with {absent}"
    served = str(served)
    if trained.split() == served.split():
        return (
            f"only in whitespace, which the tokenizer sees: trained {trained!r}, served {served!r}"
        )
    at = next(
        (i for i, (a, b) in enumerate(zip(trained, served, strict=False)) if a != b),
        min(len(trained), len(served)),
    )
    start = max(0, at - QUOTE_CHARS // 2)
    return (
        f"from character {at + 1}: trained {_quote(trained[start:], start > 0)}, "
        f"served {_quote(served[start:], start > 0)}"
    )


def _quote(text: Any, cut_before: bool = False) -> str:
    text = str(text)
    shown = text[:QUOTE_CHARS] + ("…" if len(text) > QUOTE_CHARS else "")
    return repr(("…" if cut_before else "") + shown)
