"""Model loading: any Hugging Face causal-LM directory or hub id, or a tiny local model.

The tiny builder makes a Llama-style model and a BPE tokenizer trained locally with
`tokenizers` (digits are always single tokens), so the CPU demo and tests need no download.
Everything goes through `save_pretrained` / `from_pretrained` like a real model would.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from torch import nn
from transformers import (
    CONFIG_MAPPING,
    AutoModelForCausalLM,
    AutoTokenizer,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    PreTrainedTokenizerFast,
)

from training.config import ModelConfig
from training.lora import is_adapter_dir, load_adapted

SPECIAL_TOKENS = {"pad_token": "<pad>", "bos_token": "<s>", "eos_token": "</s>"}


def train_tokenizer(corpus: Iterable[str], vocab_size: int = 96) -> PreTrainedTokenizerFast:
    """A byte-level BPE whose pre-tokenizer splits every digit into its own token."""
    bpe = digit_bpe(corpus, vocab_size, list(SPECIAL_TOKENS.values()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, **SPECIAL_TOKENS)
    tokenizer.padding_side = "left"  # decoder-only generation pads on the left
    return tokenizer


def digit_bpe(corpus: Iterable[str], vocab_size: int, special_tokens: list[str]) -> Tokenizer:
    """Byte-level BPE trained on `corpus`, every digit its own token, `special_tokens` first."""
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer=trainer)
    return bpe


def build_tiny_model(
    tokenizer: PreTrainedTokenizerBase, layers: int = 2, width: int = 128, seed: int = 0
) -> LlamaForCausalLM:
    """A Llama-style model: `layers` x `width`, 4 heads, SwiGLU 4x, tied embeddings."""
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=width,
        intermediate_size=4 * width,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=128,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    _align_generation_config(model, tokenizer)
    return model


def load_model(
    config: ModelConfig,
    corpus: Iterable[str] | None = None,
    seed: int = 0,
    *,
    allow_remote_code: bool = False,
    dtype: torch.dtype = torch.float32,
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Load `config.path`, or build the tiny model (its tokenizer trained on `corpus`).

    A directory whose architecture comes as its own Python code (`auto_map` in its config) is
    refused unless `allow_remote_code`: that code runs in this process. Weights load in
    `dtype`: float32 for training (accelerate's bf16 autocast computes in bf16 while the
    optimizer updates float32 weights), `inference_dtype()` for a model that only generates.
    """
    tokenizer: PreTrainedTokenizerBase
    model: PreTrainedModel
    if config.path is None:
        if corpus is None:
            raise ValueError("model.path: required unless a corpus is given for the tiny builder")
        tokenizer = train_tokenizer(corpus)
        model = build_tiny_model(tokenizer, config.tiny_layers, config.tiny_width, seed)
    else:
        refuse_remote_code(config.path, allow_remote_code)
        tokenizer = AutoTokenizer.from_pretrained(config.path, trust_remote_code=allow_remote_code)
        model = (  # a LoRA checkpoint: its adapter merged into the base it names
            load_adapted(config.path, dtype)
            if is_adapter_dir(config.path)
            else AutoModelForCausalLM.from_pretrained(
                config.path, dtype=dtype, trust_remote_code=allow_remote_code
            )
        )
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    _align_generation_config(model, tokenizer)
    if config.gradient_checkpointing:
        model.activation_checkpointing_enable()  # transformers 5's name for it
    return model, tokenizer


def load_tokenizer(path: str | Path, *, allow_remote_code: bool = False) -> PreTrainedTokenizerBase:
    """The tokenizer of the model directory (or adapter directory) `path`, alone."""
    refuse_remote_code(path, allow_remote_code)
    return AutoTokenizer.from_pretrained(path, trust_remote_code=allow_remote_code)


def save_model(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, path: str | Path
) -> None:
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)


def inference_dtype() -> torch.dtype:
    """bf16 on a CUDA device that has it (half the memory, the precision models ship in),
    float32 elsewhere: CPUs run bf16 matrix products slower than float32."""
    if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float32


def needs_remote_code(path: str | Path) -> bool:
    """Whether the local directory `path` names an architecture transformers does not ship,
    to be loaded from Python files of its own (its config's `auto_map`)."""
    config_file = Path(path) / "config.json"
    if not config_file.is_file():
        return False  # a hub id, or no config: from_pretrained says what is wrong
    data = json.loads(config_file.read_text())
    return "auto_map" in data and data.get("model_type") not in CONFIG_MAPPING


def refuse_remote_code(path: str | Path, allow: bool) -> None:
    if needs_remote_code(path) and not allow:
        raise ValueError(
            f"model.path: {path} needs its own Python code to load (trust_remote_code), "
            "and running a model's code is not allowed here; an administrator can allow it"
        )


def _align_generation_config(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> None:
    """Pad and BOS as the tokenizer has them; EOS: the tokenizer's, and every stop token the
    model's generation config lists (an instruct model's end-of-turn token)."""
    gen = model.generation_config
    gen.pad_token_id = tokenizer.pad_token_id
    listed = gen.eos_token_id if isinstance(gen.eos_token_id, list) else [gen.eos_token_id]
    stops = [t for t in (tokenizer.eos_token_id, *listed) if t is not None]
    unique = list(dict.fromkeys(stops))
    gen.eos_token_id = unique[0] if len(unique) == 1 else unique
    gen.bos_token_id = tokenizer.bos_token_id


class ValueHead(nn.Module):
    """V(s_t) from the policy's last hidden state: (B, T, H) -> (B, T)."""

    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.linear = nn.Linear(hidden_size, 1)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.linear(hidden.float()).squeeze(-1)
