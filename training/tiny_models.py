"""Tiny causal LMs in real architectures, built locally with random weights.

`build(arch, path)` writes a directory that loads like a downloaded instruct model: the
architecture's own config and weights (Llama, Qwen2, Qwen3, Mistral, Phi-3, Gemma, Gemma 2),
a byte-level BPE tokenizer trained here on a built-in corpus with `tokenizers`, carrying
ChatML special tokens and a ChatML chat template with an optional `<think>` section, and a
generation config whose `eos_token_id` lists the end-of-turn token `<|im_end|>` as well as
the tokenizer's EOS `<|endoftext|>` (as Qwen2/Qwen3 instruct checkpoints do). Nothing is
downloaded, so tests and the CPU demo exercise the loading, chat and stopping paths a real
model takes.

    python -m training.tiny_models --arch qwen2 --out /tmp/tiny-qwen2
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import AddedToken
from transformers import (
    AutoModelForCausalLM,
    Gemma2Config,
    GemmaConfig,
    GenerationConfig,
    LlamaConfig,
    MistralConfig,
    Phi3Config,
    PretrainedConfig,
    PreTrainedModel,
    PreTrainedTokenizerFast,
    Qwen2Config,
    Qwen3Config,
)

from training.models import digit_bpe

PAD = "<|pad|>"
END_OF_TEXT = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = (PAD, END_OF_TEXT, IM_START, IM_END)
"""Special tokens: single ids, removed when decoding with `skip_special_tokens`."""
THINK_TOKENS = ("<think>", "</think>")
"""Added as single tokens but not special (as Qwen3 does), so a decoded completion keeps its
reasoning tags and the answer can be split from the reasoning."""

CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{%- if message.role not in ['system', 'user', 'assistant'] %}"
    "{{- raise_exception('role must be system, user or assistant, not ' + message.role) }}"
    "{%- endif %}"
    "{{- '<|im_start|>' + message.role + '\\n' }}"
    "{%- if message.role == 'assistant' and message.reasoning_content is defined"
    " and message.reasoning_content %}"
    "{{- '<think>\\n' + message.reasoning_content.strip() + '\\n</think>\\n\\n' }}"
    "{%- endif %}"
    "{{- message.content + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}"
    "{{- '<think>\\n\\n</think>\\n\\n' }}"
    "{%- endif %}"
    "{%- endif %}"
)
"""ChatML (system / user / assistant turns between `<|im_start|>` and `<|im_end|>`), as the
Qwen family writes it: an assistant turn's `reasoning_content` goes inside `<think>` tags,
`add_generation_prompt` opens the assistant turn, and `enable_thinking=False` closes an
empty reasoning section so the model answers directly."""


@dataclass(frozen=True)
class Architecture:
    config_class: Callable[..., PretrainedConfig]
    extra: dict
    """Config arguments this architecture needs beyond the shared ones."""


ARCHITECTURES: dict[str, Architecture] = {
    "llama": Architecture(LlamaConfig, {}),
    "qwen2": Architecture(Qwen2Config, {"use_sliding_window": False}),
    "qwen3": Architecture(Qwen3Config, {"use_sliding_window": False}),
    "mistral": Architecture(MistralConfig, {"sliding_window": None}),
    "phi3": Architecture(Phi3Config, {"sliding_window": None}),
    "gemma": Architecture(GemmaConfig, {}),
    # Gemma 2 alternates sliding-window and global layers, softcaps logits: the decode loop
    # hands it to Hugging Face's generate, which the engine must then handle too.
    "gemma2": Architecture(Gemma2Config, {"sliding_window": 16}),
}
"""Architecture name (as the CLI takes it) -> its transformers config and extra settings."""

_WORDS = (
    "the model reads a task and writes an answer . a verifier checks the answer and the "
    "reward follows . sort the digits , add the numbers , write a function that returns "
    "the sum of a list . think step by step before you answer . what is the capital of "
    "france ? paris . you are a helpful assistant . please answer with a number only . "
    "def solve ( x ) : return x + 1 . select name from users where id = 3 ; "
    "system user assistant reasoning answer question result hello world yes no"
).split()


def corpus(n: int = 3000, seed: int = 0) -> list[str]:
    """Built-in training text for the tokenizer: English-like lines with a number, bits of
    code and SQL, the chat roles' names (the markup itself is special tokens)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 12)))
        number = str(rng.randint(0, 10 ** rng.randint(1, 6)))
        lines.append(f"{words} {number}")
    return lines


def train_chat_tokenizer(
    texts: Iterable[str], vocab_size: int = 512, max_length: int = 512
) -> PreTrainedTokenizerFast:
    """Byte-level BPE (every digit its own token, as Llama 3 and Qwen split numbers into
    short runs) with the ChatML special tokens, the think tags, and the chat template."""
    bpe = digit_bpe(texts, vocab_size, list(SPECIAL_TOKENS))
    bpe.add_tokens([AddedToken(tag, special=False, normalized=False) for tag in THINK_TOKENS])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        pad_token=PAD,
        eos_token=END_OF_TEXT,
        model_max_length=max_length,
        extra_special_tokens=[IM_START, IM_END],
        padding_side="left",  # decoder-only generation pads on the left; saved with it
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def tiny_config(
    arch: str,
    tokenizer: PreTrainedTokenizerFast,
    *,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    max_position_embeddings: int = 512,
) -> PretrainedConfig:
    """`arch`'s config at the given size: SwiGLU/GeGLU width 2x hidden, grouped-query
    attention with `kv_heads` key/value heads, head size hidden / heads."""
    if arch not in ARCHITECTURES:
        raise ValueError(f"arch: unknown architecture {arch!r}; one of {sorted(ARCHITECTURES)}")
    if hidden % heads or heads % kv_heads:
        raise ValueError(
            f"hidden, heads, kv_heads: heads ({heads}) must divide hidden ({hidden}) and "
            f"kv_heads ({kv_heads}) must divide heads"
        )
    spec = ARCHITECTURES[arch]
    return spec.config_class(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=hidden // heads,
        max_position_embeddings=max_position_embeddings,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        eos_token_id=stop_token_ids(tokenizer),
        **spec.extra,
    )


def stop_token_ids(tokenizer: PreTrainedTokenizerFast) -> list[int]:
    """End of turn first (what a chat reply ends with), then end of text."""
    return [tokenizer.convert_tokens_to_ids(IM_END), tokenizer.eos_token_id]


def build(
    arch: str,
    path: str | Path,
    *,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    vocab_size: int = 512,
    max_position_embeddings: int = 512,
    seed: int = 0,
    texts: Sequence[str] | None = None,
) -> Path:
    """Write a tiny `arch` model (random weights from `seed`) and its chat tokenizer to
    `path` with `save_pretrained`; the tokenizer trains on `texts` or the built-in corpus."""
    tokenizer = train_chat_tokenizer(
        corpus() if texts is None else texts, vocab_size, max_position_embeddings
    )
    config = tiny_config(
        arch,
        tokenizer,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        max_position_embeddings=max_position_embeddings,
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model: PreTrainedModel = AutoModelForCausalLM.from_config(config)
    model.generation_config = GenerationConfig(
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        eos_token_id=stop_token_ids(tokenizer),
    )
    out = Path(path)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m training.tiny_models",
        description="Build a tiny random-weight chat model in a real architecture.",
    )
    parser.add_argument("--arch", required=True, choices=sorted(ARCHITECTURES))
    parser.add_argument("--out", required=True, help="directory to write the model into")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--vocab-size", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    out = build(
        args.arch,
        args.out,
        hidden=args.hidden,
        layers=args.layers,
        heads=args.heads,
        kv_heads=args.kv_heads,
        vocab_size=args.vocab_size,
        seed=args.seed,
    )
    print(out)


if __name__ == "__main__":
    main()
