"""How the engine turns a prompt into tokens, said in one place.

Training and evaluation tokenize each task's prompt text as it is: no chat template around
it and no special tokens added by the tokenizer. The platform records this with every model
version, so a server that wraps prompts differently (a chat template, a BOS token) is
flagged: a policy trained on raw prompts answers worse when served inside a chat template.
"""

from __future__ import annotations

from typing import Any

CHAT_TEMPLATE: str | None = None
"""The chat template applied around a prompt; None: the prompt's text is the whole input."""
ADD_SPECIAL_TOKENS = False
"""Whether the tokenizer adds its special tokens (BOS and the like) to a prompt."""


def prompt_encoding() -> dict[str, Any]:
    """The encoding above as plain data: ``{"chat_template", "add_special_tokens"}``."""
    return {"chat_template": CHAT_TEMPLATE, "add_special_tokens": ADD_SPECIAL_TOKENS}
