"""What one training step needs before it runs: peak memory per process and compute.

Pure arithmetic (no torch): the platform sizes a run against the workers that could take it
before any of them loads a model. The estimate follows what the engine holds (see
`training.step.build_run`, `training.decode`, `completion_logits`):

- model states, for the whole run: fp32 weights (the engine loads every model in float32),
  their gradients and AdamW's two moments, 16 bytes per parameter (Rajbhandari et al. 2020,
  ZeRO, section 3.1), divided over the processes when FSDP or DeepSpeed shard them; plus a
  frozen fp32 reference copy when a KL term needs one, and PPO's value head; with LoRA, the
  frozen fp32 weights alone, the 16 bytes only for the adapters, and no reference copy (the
  reference is the same weights with the adapters off);
- generation: the static KV cache of every completion the process samples at once
  (rows x (prompt + max_new_tokens) x layers x 2 x kv width, fp32) and the decode step's
  logits; the `hf` backend also keeps every step's logits until the end;
- the update, one micro-batch at a time: activations saved for the backward pass, about
  16 values per hidden unit per token per layer (Korthikanti et al. 2022, "Reducing
  activation recomputation", section 4.1, at fp32), one layer's worth under gradient
  checkpointing, and the completion logits in fp32 with their log-softmax and gradient.
  A packed pass (`training.packing`) runs only where it holds no more by this count.

Generation and the update do not overlap, so the peak is the states plus the larger of the
two. Compute counts 2 FLOPs per parameter per token forward and 6 forward + backward
(Kaplan et al. 2020, section 2.1). Terms the estimate leaves out (the allocator's slack,
buffers of the attention kernel, the tokenizer) only add to the real figure: a run refused
on this estimate would have failed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from training.config import BaseConfig, RLConfig
from training.lora import LLAMA_STYLE

FP32_BYTES = 4
STATE_BYTES_PER_PARAMETER = 16
"""fp32 weight (4) + fp32 gradient (4) + AdamW exp_avg and exp_avg_sq (8)."""
ACTIVATION_VALUES_PER_HIDDEN = 16
"""Values a decoder layer keeps per token per hidden unit for its backward pass: the norms'
inputs, q/k/v, the attention output, the MLP's gate, up and activation (with an MLP about
2.7x wide, 6 + 4 x 2.7 = 17; rounded down, so the estimate stays a floor)."""
LOGIT_COPIES = 3
"""fp32 logits, their log-softmax and its gradient, alive together in a micro-batch's loss."""
DECODE_LOGIT_COPIES = 3
"""A decode step's fp32 logits, the tempered copy and the filtered probabilities."""
DEFAULT_PROMPT_TOKENS = 32
"""Prompt length assumed when the pool's is not known: about the shortest task prompt (the
digit-sort demo's are 20 tokens), so longer prompts only add to a real step."""
SHARDED_STRATEGIES = ("fsdp", "deepspeed")
ASPECT_RATIO = 128
"""Hidden size per layer of a typical decoder (Llama 7B: 4096 / 32), for a model whose
config.json is not known: only its parameter count is."""
GUESSED_VOCAB = 32_000
"""Smallest common vocabulary (Llama 2, Mistral): a guess must not overstate the logits."""
GUESSED_KV_SHARE = 8
"""Grouped-query attention: key/value width as hidden / 8 (Llama 3, Qwen 2.5 are 1/4 to 1/7)."""


@dataclass(frozen=True)
class ModelShape:
    parameters: int
    hidden: int
    layers: int
    vocab: int
    kv_dim: int
    """Width of one layer's keys (and of its values): key/value heads x head size."""

    @classmethod
    def guess(cls, parameters: int) -> ModelShape:
        """A decoder with `parameters` (about 12 x layers x hidden^2) of the usual aspect."""
        layers = max(1, round((parameters / (12 * ASPECT_RATIO**2)) ** (1 / 3)))
        hidden = max(1, math.isqrt(max(1, parameters // (12 * layers))))
        return cls(parameters, hidden, layers, GUESSED_VOCAB, max(1, hidden // GUESSED_KV_SHARE))

    @classmethod
    def from_dict(cls, parameters: int, shape: dict[str, Any] | None) -> ModelShape:
        """From `shape_of`'s dict when a worker advertised one, else guessed."""
        keys = ("hidden", "layers", "vocab", "kv_dim")
        try:
            sizes = [int(shape[key]) for key in keys]  # type: ignore[index]
        except (KeyError, TypeError, ValueError):
            return cls.guess(int(parameters))
        return cls(int(parameters), *sizes)


def shape_of(config: dict[str, Any]) -> dict[str, int] | None:
    """The sizes the estimate needs from a Hugging Face config.json; None when it lacks one."""
    try:
        hidden, layers = int(config["hidden_size"]), int(config["num_hidden_layers"])
        vocab, heads = int(config["vocab_size"]), int(config["num_attention_heads"])
        kv_heads = int(config.get("num_key_value_heads") or heads)
        head_dim = int(config.get("head_dim") or hidden // heads)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    return {"hidden": hidden, "layers": layers, "vocab": vocab, "kv_dim": kv_heads * head_dim}


@dataclass(frozen=True)
class Part:
    name: str
    bytes: int
    field: str
    """The configuration field that sets this part's size the most (for the error)."""


@dataclass(frozen=True)
class StepEstimate:
    resident: tuple[Part, ...]
    """Held for the whole run."""
    generation: tuple[Part, ...]
    update: tuple[Part, ...]
    flops: float
    """One step, all processes together."""

    @property
    def peak_bytes(self) -> int:
        """Per process."""
        phase = max(_total(self.generation), _total(self.update))
        return _total(self.resident) + phase

    @property
    def largest(self) -> Part:
        """The biggest part alive at the peak: what to shrink first."""
        phase = max((self.generation, self.update), key=_total)
        return max((*self.resident, *phase), key=lambda part: part.bytes)

    def seconds(self, flops_per_s: float) -> float:
        """At least this long on a machine doing `flops_per_s` (all its processes)."""
        return self.flops / flops_per_s


def estimate_step(
    config: BaseConfig,
    shape: ModelShape,
    *,
    processes: int = 1,
    strategy: str = "ddp",
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS,
) -> StepEstimate:
    """Peak memory of one process and compute of one step of `config` on a model of `shape`."""
    rl = isinstance(config, RLConfig)
    group = config.group_size if isinstance(config, RLConfig) else 1
    local_prompts = math.ceil(config.prompts_per_step / processes)
    rows = local_prompts * group  # completions this process samples and trains on
    new = config.sampling.max_new_tokens
    seq = prompt_tokens + new
    resident = _resident(config, shape, processes, strategy)
    generation = _generation(config, shape, rows, seq) if rl else ()
    micro = min(config.micro_size, rows)
    update = _update(config, shape, micro, seq, new)
    return StepEstimate(resident, generation, update, _flops(config, shape, group, prompt_tokens))


def _resident(
    config: BaseConfig, shape: ModelShape, processes: int, strategy: str
) -> tuple[Part, ...]:
    shards = processes if strategy in SHARDED_STRATEGIES else 1
    value_head = shape.hidden + 1 if config.algorithm == "ppo" else 0
    lora = config.model.lora
    if lora.enabled:
        adapters = lora_parameters(shape, lora.rank, len(lora.target_modules or LLAMA_STYLE))
        states = shape.parameters * FP32_BYTES
        states += (adapters + value_head) * STATE_BYTES_PER_PARAMETER
        return (Part("model states", states // shards, "model"),)
    trained = shape.parameters + value_head
    parts = [Part("model states", trained * STATE_BYTES_PER_PARAMETER // shards, "model")]
    if isinstance(config, RLConfig) and config.uses_reference:
        reference = shape.parameters * FP32_BYTES // shards
        parts.append(Part("reference copy", reference, "hyperparameters.kl_estimator"))
    return tuple(parts)


def lora_parameters(shape: ModelShape, rank: int, targets: int) -> int:
    """A floor on the adapters' parameters: per layer and adapted matrix, rank x (its input +
    output width), each of which is at least hidden + kv width for every projection the
    defaults adapt (q, k, v, o and the MLP's; fused or not)."""
    return shape.layers * targets * rank * (shape.hidden + shape.kv_dim)


def _generation(config: BaseConfig, shape: ModelShape, rows: int, seq: int) -> tuple[Part, ...]:
    cache = rows * seq * shape.layers * 2 * shape.kv_dim * FP32_BYTES
    logits = rows * shape.vocab * FP32_BYTES * DECODE_LOGIT_COPIES
    if config.sampling.backend == "hf":  # generate(output_logits=True) keeps every step's
        logits += rows * config.sampling.max_new_tokens * shape.vocab * FP32_BYTES
    blame = _batch_field(config)
    return (Part("generation cache", cache, blame), Part("generation logits", logits, blame))


def _update(
    config: BaseConfig, shape: ModelShape, micro: int, seq: int, new: int
) -> tuple[Part, ...]:
    per_layer = micro * seq * shape.hidden * ACTIVATION_VALUES_PER_HIDDEN * FP32_BYTES
    kept_layers = 1 if config.model.gradient_checkpointing else shape.layers
    checkpoints = micro * seq * shape.hidden * FP32_BYTES * shape.layers
    activations = per_layer * kept_layers + (checkpoints if kept_layers == 1 else 0)
    logits = micro * (new + 1) * shape.vocab * FP32_BYTES * LOGIT_COPIES
    blame = "hyperparameters.micro_batch_size" if config.micro_batch_size else _batch_field(config)
    return (Part("activations", activations, blame), Part("update logits", logits, blame))


def _flops(config: BaseConfig, shape: ModelShape, group: int, prompt_tokens: int) -> float:
    params, prompts = shape.parameters, config.prompts_per_step
    new = config.sampling.max_new_tokens
    sequences = prompts * group
    trained_tokens = sequences * (prompt_tokens + new)
    # Forward 2 and backward 4 per parameter per token; frozen weights (LoRA) need no weight
    # gradient, so their backward is the input gradient's 2 alone.
    per_token = 4.0 if config.model.lora.enabled else 6.0
    if not isinstance(config, RLConfig):
        return per_token * params * trained_tokens
    generate = 2.0 * params * (prompts * prompt_tokens + sequences * new)
    scoring = 2.0 * params * trained_tokens * (2 if config.uses_reference else 1)
    return generate + scoring + per_token * params * trained_tokens * config.num_epochs


def _batch_field(config: BaseConfig) -> str:
    """Of the fields that multiply into a batch, the one pushed furthest past its default."""
    defaults = type(config)()
    names = ["prompts_per_step", "sampling.max_new_tokens"]
    if isinstance(config, RLConfig):
        names.insert(1, "group_size")

    def growth(name: str) -> float:
        return _value(config, name) / max(1, _value(defaults, name))

    return "hyperparameters." + max(names, key=growth)


def _value(config: BaseConfig, name: str) -> int:
    head, _, tail = name.partition(".")
    value = getattr(config, head)
    return int(getattr(value, tail) if tail else value)


def _total(parts: tuple[Part, ...]) -> int:
    return sum(part.bytes for part in parts)
