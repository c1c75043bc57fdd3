"""What a model directory holds, as plain data for the model page: `describe(path)`.

Nothing is instantiated: the architecture and context length come from `config.json`, the
parameter count and stored dtype from the safetensors headers (a checkpoint saved as
PyTorch pickles is counted on the meta device instead), the chat template and special tokens
from the tokenizer files.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig

from training.models import needs_remote_code, refuse_remote_code

CONTEXT_LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")
"""Config keys that hold the context length, by architecture family (Llama-likes use the
first, GPT-2 the second, MPT and ChatGLM the others)."""


def describe(path: str | Path, *, allow_remote_code: bool = False) -> dict[str, Any]:
    """``{architecture, model_type, parameters, dtype, context_length, chat_template,
    special_tokens, other_special_tokens, stop_tokens, vocab_size, remote_code}`` of the local
    directory `path`."""
    directory = Path(path)
    if not (directory / "config.json").is_file():
        raise ValueError(f"path: {path} is not a model directory (it has no config.json)")
    refuse_remote_code(directory, allow_remote_code)
    config = AutoConfig.from_pretrained(directory, trust_remote_code=allow_remote_code)
    tokenizer = AutoTokenizer.from_pretrained(directory, trust_remote_code=allow_remote_code)
    parameters, stored = _weights(directory)
    if parameters is None:
        parameters = _meta_count(config, allow_remote_code)
    return {
        "architecture": (config.architectures or [type(config).__name__])[0],
        "model_type": config.model_type,
        "parameters": parameters,
        "dtype": stored or _dtype_name(getattr(config, "dtype", None)),
        "context_length": _context_length(config),
        "chat_template": bool(tokenizer.chat_template),
        **_special_tokens(tokenizer),
        "stop_tokens": _stop_tokens(directory, tokenizer),
        "vocab_size": getattr(config, "vocab_size", None),
        "remote_code": needs_remote_code(directory),
    }


def _weights(directory: Path) -> tuple[int | None, str | None]:
    """Parameters stored in the safetensors files (tied weights are stored once) and their
    most common dtype; (None, None) where there are none."""
    files = sorted(directory.glob("*.safetensors"))
    if not files:
        return None, None
    count, dtypes = 0, Counter[str]()
    for file in files:
        with safe_open(str(file), framework="pt") as weights:
            for name in weights.keys():  # noqa: SIM118: safe_open is no mapping
                view = weights.get_slice(name)
                numel = 1
                for size in view.get_shape():
                    numel *= size
                count += numel
                dtypes[_SAFETENSORS_DTYPES.get(view.get_dtype(), view.get_dtype())] += numel
    return count, dtypes.most_common(1)[0][0]


_SAFETENSORS_DTYPES = {"F32": "float32", "BF16": "bfloat16", "F16": "float16", "F64": "float64"}


def _meta_count(config: Any, allow_remote_code: bool) -> int:
    """Parameters of the architecture, counted without allocating them."""
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, trust_remote_code=allow_remote_code)
    return sum(p.numel() for p in model.parameters())


def _context_length(config: Any) -> int | None:
    for key in CONTEXT_LENGTH_KEYS:
        value = getattr(config, key, None)
        if isinstance(value, int):
            return value
    return None


def _special_tokens(tokenizer: Any) -> dict[str, Any]:
    """The named special tokens (``eos_token``: ...) and the other special tokens in a list."""
    named = {name: str(value) for name, value in tokenizer.special_tokens_map.items()}
    others = [str(t) for t in tokenizer.all_special_tokens if str(t) not in named.values()]
    return {"special_tokens": named, "other_special_tokens": others}


def _stop_tokens(directory: Path, tokenizer: Any) -> list[str]:
    """The tokens generation stops at: the tokenizer's EOS and the generation config's."""
    ids = [tokenizer.eos_token_id]
    if (directory / "generation_config.json").is_file():
        listed = GenerationConfig.from_pretrained(directory).eos_token_id
        ids += listed if isinstance(listed, list) else [listed]
    unique = dict.fromkeys(i for i in ids if i is not None)
    return [tokenizer.convert_ids_to_tokens(i) for i in unique]


def _dtype_name(dtype: Any) -> str | None:
    if dtype is None:
        return None
    return str(dtype).removeprefix("torch.")
