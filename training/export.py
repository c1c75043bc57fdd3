"""A checkpoint as a standard Hugging Face model directory, with a model card.

`export_checkpoint(checkpoint, out, lineage=...)` writes into `out`:
  model.safetensors (+ config.json)    the weights; a LoRA checkpoint's adapter merged into
                                       its base, unless `adapter_only`
  adapter_config.json, adapter_model.safetensors   instead, with `adapter_only`
  tokenizer files                      with the chat template the run used
  generation_config.json               the stop and padding tokens the engine generates with
  README.md                            a model card: YAML front matter, then the lineage

Weights are written in `dtype`: `auto` (the default) is the precision the base model shipped
in (its config's `dtype`, as a Hub model records it; float32 when it records none), so a model
trained from a bf16 release exports at that release's size; `float32`, `bfloat16` or `float16`
pick one. Training keeps float32 master weights, so a narrower export rounds them once here.

`AutoModelForCausalLM.from_pretrained(out)` (or peft's `PeftModel.from_pretrained` on the base,
for an adapter) then generates what the engine generates from the checkpoint. The lineage is
plain data the caller collects (run, experiment, pool and verifier versions, report
verdicts, promotion); this module does not know where it comes from.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import torch
import yaml

from training.config import ModelConfig
from training.lora import is_adapter_dir, load_peft
from training.models import load_model

CARD = "README.md"
DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
}
"""What an export can be written in, besides `auto`."""
EXPORT_DTYPE_CHOICES = ("auto", *DTYPES)


def export_checkpoint(
    checkpoint: str | Path,
    out: str | Path,
    *,
    lineage: Mapping[str, Any] | None = None,
    adapter_only: bool = False,
    dtype: str = "auto",
) -> Path:
    """Write `checkpoint` (a checkpoint directory, or its `model/` directory) to `out` as a
    Hugging Face model directory; see the module docstring. `out` must be empty or absent."""
    if dtype not in EXPORT_DTYPE_CHOICES:
        raise ValueError(f"dtype: {dtype!r} is not one of {', '.join(EXPORT_DTYPE_CHOICES)}")
    model_dir = _model_dir(Path(checkpoint))
    target = Path(out)
    if target.exists() and any(target.iterdir()):
        raise ValueError(f"out: {target} is not empty")
    adapter = is_adapter_dir(model_dir)
    if adapter_only and not adapter:
        raise ValueError("adapter_only: this checkpoint holds full weights, not a LoRA adapter")
    model, tokenizer = load_model(ModelConfig(path=str(model_dir)))  # merged, as the engine runs it
    state = _state(Path(checkpoint))
    base = _base_model(model_dir, state)
    weights = export_dtype(dtype, base)
    target.mkdir(parents=True, exist_ok=True)
    if adapter_only:
        peft = load_peft(model_dir, weights).to(weights)  # peft loads adapters in float32
        peft.save_pretrained(str(target), save_embedding_layers=False)
        model.generation_config.save_pretrained(target)
    else:
        cast(torch.nn.Module, model).to(weights)  # in place: this loaded copy is the export's
        model.save_pretrained(target)  # safetensors, config.json, generation_config.json
    tokenizer.save_pretrained(target)
    card = model_card(lineage or {}, state=state, base_model=base, adapter_only=adapter_only)
    (target / CARD).write_text(card)
    return target


def model_card(
    lineage: Mapping[str, Any],
    *,
    state: Mapping[str, Any],
    base_model: str | None,
    adapter_only: bool,
) -> str:
    """README.md: YAML front matter (what the Hub reads, plus the lineage under `crucible`),
    then the same lineage for people."""
    config = state.get("config", {})
    lora = config.get("model", {}).get("lora") or {}
    meta: dict[str, Any] = {
        "library_name": "peft" if adapter_only else "transformers",
        "pipeline_tag": "text-generation",
        "tags": ["crucible", "reinforcement-learning", *(["lora"] if lora.get("rank") else [])],
    }
    if base_model is not None:
        meta["base_model"] = base_model
    meta["crucible"] = {
        "step": state.get("step"),
        "algorithm": config.get("algorithm"),
        **({"lora": lora} if lora.get("rank") else {}),
        "lineage": _plain(lineage),
    }
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    what = "LoRA adapter" if adapter_only else "Model"
    lines = [
        f"# {lineage.get('title') or what + ' exported from Crucible'}",
        "",
        f"{what} trained with {config.get('algorithm', 'an unrecorded algorithm')} "
        f"for {state.get('step', '?')} steps" + (f" on `{base_model}`." if base_model else "."),
        "",
    ]
    for key, value in lineage.items():
        if key == "title":
            continue
        lines += [f"## {key.replace('_', ' ').capitalize()}", "", *_bullets(value), ""]
    return f"---\n{front}---\n\n" + "\n".join(lines)


def export_dtype(requested: str, base_model: str | None) -> torch.dtype:
    """The precision to write: `requested`, or for `auto` the one the base model's
    config.json records (float32 when it records none, or the base is not on this disk)."""
    if requested != "auto":
        return DTYPES[requested]
    config = Path(base_model) / "config.json" if base_model else None
    if config is None or not config.is_file():
        return torch.float32
    recorded = json.loads(config.read_text())
    name = recorded.get("dtype") or recorded.get("torch_dtype")
    return DTYPES.get(str(name), torch.float32)


def _model_dir(checkpoint: Path) -> Path:
    model_dir = checkpoint / "model" if (checkpoint / "model").is_dir() else checkpoint
    if not (model_dir / "config.json").is_file() and not is_adapter_dir(model_dir):
        raise ValueError(f"checkpoint: {checkpoint} holds no model (no config.json or adapter)")
    return model_dir


def _state(checkpoint: Path) -> dict[str, Any]:
    path = checkpoint / "state.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def _base_model(model_dir: Path, state: Mapping[str, Any]) -> str | None:
    """What the run started from: the adapter's base, or the run's `model.path`."""
    if is_adapter_dir(model_dir):
        config = json.loads((model_dir / "adapter_config.json").read_text())
        return config.get("base_model_name_or_path")
    return state.get("config", {}).get("model", {}).get("path")


def _plain(value: Any) -> Any:
    """JSON types only (YAML then writes no Python tags)."""
    return json.loads(json.dumps(value, default=str))


def _bullets(value: Any, depth: int = 0) -> list[str]:
    pad = "  " * depth
    if isinstance(value, Mapping):
        out = []
        for key, item in value.items():
            if isinstance(item, Mapping | list | tuple):
                out += [f"{pad}- **{key}**:", *_bullets(item, depth + 1)]
            elif isinstance(item, str) and "\n" in item:  # a template: verbatim, as a block
                block = [f"{pad}  {line}" for line in ["```", *item.splitlines(), "```"]]
                out += [f"{pad}- **{key}**:", *block]
            else:
                out.append(f"{pad}- **{key}**: {item}")
        return out
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [line for item in value for line in _item(item, depth)] or [f"{pad}- none"]
    return [f"{pad}- {value}"]


def _item(item: Any, depth: int) -> list[str]:
    """One entry of a list: a mapping of scalars (a report, a version) on one line, else nested."""
    if isinstance(item, Mapping) and all(_inline(v) is not None for v in item.values()):
        return ["  " * depth + "- " + ", ".join(f"{k}: {_inline(v)}" for k, v in item.items())]
    return _bullets(item, depth)


def _inline(value: Any) -> str | None:
    """A scalar, or a list of scalars, as a few words; None for anything deeper."""
    if isinstance(value, Mapping):
        return None
    if isinstance(value, list | tuple):
        words = [_inline(v) for v in value]
        return None if None in words else ", ".join(w for w in words if w) or "none"
    if isinstance(value, str) and "\n" in value:
        return None
    return "none" if value is None else str(value)
