"""LoRA (Hu et al. 2021, arXiv:2106.09685) through `peft`: the config, applying it to a policy,
and saving and loading its adapter.

With LoRA on, the policy's base weights stay frozen and only the low-rank adapters train, so
the optimizer's moments, the gradients and the checkpoints are the adapters' size; the
reference policy of the KL term is the same model with its adapter switched off
(`peft`'s `disable_adapter()`), never a second copy. A checkpoint's `model/` directory then
holds `adapter_config.json`, `adapter_model.safetensors` and the tokenizer, and
`load_adapted` loads it back on its base.

The adapter names its base by catalogue name, the base's path relative to the models folder
(`CRUCIBLE_MODELS_DIR`; the built-in model's name is its folder there), not by an absolute
path: a checkpoint still loads once the models folder has moved, or on another worker whose
folder is elsewhere. `base_path` resolves the name on load; an adapter saved before (an
absolute path) loads from that path while it exists, else from the same name in the models
folder.
"""

from __future__ import annotations

import json
import os
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import torch
from peft import LoraConfig as PeftLoraConfig
from peft import PeftModel, get_peft_model, set_peft_model_state_dict
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel

from training.fields import bounded

ADAPTER_CONFIG = "adapter_config.json"
ADAPTER_WEIGHTS = "adapter_model.safetensors"
MODELS_DIR_ENV = "CRUCIBLE_MODELS_DIR"
"""The models folder the catalogue names are relative to (the platform sets it for its
workers and their children from its `MODELS_DIR` setting)."""

LLAMA_STYLE = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
DEFAULT_TARGETS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("llama", "qwen2", "qwen3", "mistral", "gemma", "gemma2", "gemma3_text"), LLAMA_STYLE
    ),
    "phi3": ("qkv_proj", "o_proj", "gate_up_proj", "down_proj"),
    "gpt2": ("c_attn", "c_proj", "c_fc"),
}
"""Model type (`config.model_type`) -> the linear layers LoRA adapts by default: every
attention and MLP projection, as the QLoRA paper found best (Dettmers et al. 2023)."""


@dataclass(frozen=True)
class LoraConfig:
    """Train low-rank adapters on the frozen base model instead of every weight."""

    rank: int = bounded(0, 0, 1024)
    """Rank r of each adapter (0 = off: full fine-tuning). 8 to 64 is usual."""
    alpha: int = bounded(16, 1, 100_000)
    """Scale: an adapter's update is multiplied by alpha / rank."""
    dropout: float = bounded(0.0, 0, 1, high_open=True)
    """Dropout on each adapter's input while training."""
    target_modules: tuple[str, ...] | None = None
    """Names of the linear layers to adapt; None = every attention and MLP projection of
    the model's architecture (Llama, Qwen2, Qwen3, Mistral, Gemma, Phi-3, GPT-2)."""

    @property
    def enabled(self) -> bool:
        return self.rank > 0


def lora_from_dict(data: LoraConfig | dict | None) -> LoraConfig:
    """A `LoraConfig` from its stored dict form (lists for tuples), unknown keys refused."""
    if data is None or isinstance(data, LoraConfig):
        return data or LoraConfig()
    known = set(LoraConfig.__dataclass_fields__)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"model.lora.{unknown[0]}: unknown field; one of {sorted(known)}")
    targets = data.get("target_modules")
    return LoraConfig(**{**data, "target_modules": None if targets is None else tuple(targets)})


def target_modules(config: LoraConfig, model: PreTrainedModel) -> tuple[str, ...]:
    if config.target_modules is not None:
        return config.target_modules
    kind = model.config.model_type
    if kind not in DEFAULT_TARGETS:
        raise ValueError(
            f"model.lora.target_modules: no default for model type {kind!r}; name the "
            "linear layers to adapt"
        )
    return DEFAULT_TARGETS[kind]


def apply_lora(model: PreTrainedModel, config: LoraConfig, base_path: str | None) -> PeftModel:
    """`model` with fresh adapters (B = 0, so it starts as the base) and only those trainable.

    `base_path`'s catalogue name (`base_name`) is written into the adapter's config, so a
    checkpoint names its base wherever the models folder is."""
    base_path = None if base_path is None else base_name(base_path)
    peft_config = PeftLoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        lora_dropout=config.dropout,
        target_modules=list(target_modules(config, model)),
        task_type="CAUSAL_LM",
        base_model_name_or_path=base_path,
    )
    if getattr(model, "is_activation_checkpointing", False):
        # Checkpointed blocks recompute from their inputs; with a frozen embedding nothing
        # upstream requires grad, so the adapters inside them would get none.
        model.enable_input_require_grads()
    peft_model = get_peft_model(model, peft_config)
    peft_model.peft_config["default"].base_model_name_or_path = base_path
    return peft_model


def is_adapted(model: torch.nn.Module) -> bool:
    return isinstance(model, PeftModel)


def is_adapter_dir(directory: str | Path) -> bool:
    return (Path(directory) / ADAPTER_CONFIG).is_file()


def adapter_off(model: torch.nn.Module) -> AbstractContextManager[None]:
    """A block in which `model` (a `PeftModel`) runs as its base, its adapter switched off."""
    return _peft(model).disable_adapter()


def save_adapter(
    model: torch.nn.Module, directory: Path, state_dict: dict[str, torch.Tensor] | None = None
) -> None:
    """The adapter's weights and config only (`state_dict` is the full model's, gathered
    across processes; peft keeps the adapter's part of it)."""
    _peft(model).save_pretrained(str(directory), state_dict=state_dict, save_embedding_layers=False)


def load_adapter_weights(model: torch.nn.Module, directory: Path) -> None:
    """Load a saved adapter's weights into `model`'s adapter in place, exactly."""
    weights = load_file(str(directory / ADAPTER_WEIGHTS))
    result: Any = set_peft_model_state_dict(_peft(model), weights)
    missing = [k for k in result.missing_keys if "lora_" in k]
    if missing or result.unexpected_keys:
        raise ValueError(
            f"adapter mismatch: missing {missing}, unexpected {result.unexpected_keys}"
        )


def _peft(model: torch.nn.Module) -> PeftModel:
    if not isinstance(model, PeftModel):
        raise TypeError(f"{type(model).__name__} has no LoRA adapter")
    return model


def models_dir() -> Path | None:
    """The models folder (`CRUCIBLE_MODELS_DIR`), None when not set."""
    folder = os.environ.get(MODELS_DIR_ENV)
    return Path(os.path.normpath(Path(folder).absolute())) if folder else None


def base_name(path: str | Path) -> str:
    """What an adapter names its base `path` by: its path relative to the models folder (its
    catalogue name) when it lies inside it, else `path` as given (a hub id, a folder
    elsewhere)."""
    folder = models_dir()
    if folder is None or not Path(path).is_absolute():
        return str(path)
    full = Path(os.path.normpath(path))
    return full.relative_to(folder).as_posix() if full.is_relative_to(folder) else str(path)


def base_path(directory: str | Path) -> str:
    """The directory (or hub id) of the base an adapter directory names: a catalogue name
    in the models folder; an absolute path (an adapter saved before names were) as it is
    while it exists, else the same model's name (its last one or two parts) in the models
    folder, so a moved folder still loads. ValueError when the base is nowhere."""
    config = json.loads((Path(directory) / ADAPTER_CONFIG).read_text())
    named = config.get("base_model_name_or_path")
    if not named:
        raise ValueError(f"{directory}: {ADAPTER_CONFIG} names no base model")
    named = str(named)
    folder = models_dir()
    if Path(named).is_absolute():
        if Path(named).is_dir() or folder is None:
            return named
        parts = Path(named).parts
        candidates = ["/".join(parts[-2:]), parts[-1]]
    else:
        candidates = [named]
    if folder is None:
        return named  # a hub id or a path relative to the working directory
    for name in candidates:
        found = Path(os.path.normpath(folder / name))
        if found.is_relative_to(folder) and (found / "config.json").is_file():
            return str(found)
    raise ValueError(
        f"the adapter's base model {named!r} is not in the models folder {folder} "
        f"({MODELS_DIR_ENV}); put it there, or point {MODELS_DIR_ENV} at the folder holding it"
    )


def load_peft(directory: str | Path, dtype: torch.dtype = torch.float32) -> PeftModel:
    """The base model named by the adapter in `directory`, with the adapter on it unmerged
    (so it can still be switched off, or saved on its own)."""
    base = AutoModelForCausalLM.from_pretrained(base_path(directory), dtype=dtype)
    return PeftModel.from_pretrained(base, str(directory))


def load_adapted(directory: str | Path, dtype: torch.dtype = torch.float32) -> PreTrainedModel:
    """The adapter in `directory` merged into its base: a plain transformers model, as fast
    as the base."""
    return cast(PreTrainedModel, load_peft(directory, dtype).merge_and_unload())


def check_adapter(directory: str | Path) -> None:
    """Load the adapter in `directory` on the base it names, as evaluation will, and say in
    one line (a `ValueError`) why it does not fit: layers the base lacks, weights of another
    shape, adapter weights missing or left over. The tokenizer beside it must load too."""
    directory = Path(directory)
    AutoTokenizer.from_pretrained(str(directory))
    try:
        model = load_peft(directory)
    except RuntimeError as exc:  # torch's "size mismatch for <name>: copying a param..."
        lines = [line.strip() for line in str(exc).splitlines() if "size mismatch" in line]
        raise ValueError(f"the adapter does not fit its base: {(lines or [str(exc)])[0]}") from exc
    except ValueError as exc:  # peft: "Target modules {...} not found in the base model"
        raise ValueError(f"the adapter does not fit its base: {exc}") from exc
    load_adapter_weights(model, directory)
