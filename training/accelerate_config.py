"""The ``accelerate launch`` config file of a run, from its process count and strategy.

``accelerate launch --config_file FILE`` reads what this writes: one replica per process
(``ddp``), FSDP full sharding wrapped at the model's decoder layer, or DeepSpeed ZeRO stage 2
or 3. The file is what every node of a run is started with; only ``machine_rank`` differs
between them (docs/engine.md, "Many processes").

FSDP keeps the full state dict type: ``accelerator.get_state_dict`` gathers the shards onto
the main process, so ``training.checkpoint`` writes the same ``model/`` directory as a single
process does, and a run resumes under any strategy. ``use_orig_params`` lets an optimizer
hold only the trainable parameters of a flat shard, which LoRA needs (its base weights are
frozen inside the same shards as its adapters).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import yaml

STRATEGIES = ("ddp", "fsdp", "deepspeed")
"""How the model is spread over the processes: each rank a replica (DDP), or sharded."""
ZERO_STAGES = (2, 3)
"""DeepSpeed ZeRO stages offered: 2 shards optimizer state and gradients, 3 the weights too."""
DEFAULT_PORT = 29500


def deepspeed_problem() -> str | None:
    """Why the ``deepspeed`` strategy cannot start here, naming the field, or None."""
    if importlib.util.find_spec("deepspeed") is None:
        return "strategy: deepspeed is not installed on this worker (pip install deepspeed)"
    return None


def accelerate_config(
    strategy: str,
    processes: int,
    *,
    on_gpu: bool = True,
    mixed_precision: str = "bf16",
    machines: int = 1,
    machine_rank: int = 0,
    main_ip: str | None = None,
    port: int = DEFAULT_PORT,
    layer_classes: Sequence[str] = (),
    zero_stage: int = 2,
) -> dict[str, Any]:
    """accelerate's config for `processes` processes in all, over `machines` nodes.

    `layer_classes` names the decoder layer (``Qwen2DecoderLayer``...) FSDP wraps each of;
    empty lets accelerate take the model's ``_no_split_modules``, the same layer for every
    transformers causal LM. ValueError naming the field that cannot be met.
    """
    _check(strategy, processes, on_gpu, machines, machine_rank, main_ip, zero_stage)
    config: dict[str, Any] = {
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": {"ddp": "MULTI_GPU", "fsdp": "FSDP", "deepspeed": "DEEPSPEED"}[
            strategy
        ],
        "num_processes": processes,
        "num_machines": machines,
        "machine_rank": machine_rank,
        "main_process_port": port,
        "mixed_precision": mixed_precision if on_gpu else "no",
        "dynamo_config": {"dynamo_backend": "NO"},
        # accelerate's torchrun launcher starts the ranks on GPUs and CPUs alike; with no GPU
        # visible the engine's Accelerator(cpu=True) joins them over gloo.
        "use_cpu": False,
        "rdzv_backend": "static",
        "same_network": True,
    }
    if machines > 1:
        config["main_process_ip"] = main_ip
    if strategy == "fsdp":
        config["fsdp_config"] = fsdp_section(layer_classes)
    if strategy == "deepspeed":
        config["deepspeed_config"] = deepspeed_section(zero_stage)
    return config


def fsdp_section(layer_classes: Sequence[str]) -> dict[str, Any]:
    section: dict[str, Any] = {
        "fsdp_version": 1,
        "fsdp_sharding_strategy": "FULL_SHARD",
        "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
        "fsdp_state_dict_type": "FULL_STATE_DICT",  # what training.checkpoint saves and loads
        "fsdp_use_orig_params": True,  # LoRA: frozen and trained weights share flat shards
        "fsdp_sync_module_states": True,  # rank 0's loaded weights reach every shard
        "fsdp_cpu_ram_efficient_loading": False,  # the engine loads the model before prepare
        "fsdp_offload_params": False,
        "fsdp_backward_prefetch": "BACKWARD_PRE",
        "fsdp_forward_prefetch": False,
        "fsdp_activation_checkpointing": False,
    }
    if layer_classes:
        section["fsdp_transformer_layer_cls_to_wrap"] = ",".join(layer_classes)
    return section


def deepspeed_section(zero_stage: int) -> dict[str, Any]:
    return {
        "zero_stage": zero_stage,
        "offload_optimizer_device": "none",
        "offload_param_device": "none",
        # Stage 3 saves the gathered 16-bit weights, so a checkpoint's model/ loads on its own.
        "zero3_init_flag": False,
        "zero3_save_16bit_model": zero_stage == 3,
    }


def to_yaml(config: dict[str, Any]) -> str:
    return yaml.safe_dump(config, sort_keys=False)


def _check(
    strategy: str,
    processes: int,
    on_gpu: bool,
    machines: int,
    machine_rank: int,
    main_ip: str | None,
    zero_stage: int,
) -> None:
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: must be one of {', '.join(STRATEGIES)}")
    if not on_gpu and strategy != "ddp":
        raise ValueError(f"strategy: {strategy} needs GPUs; on a CPU use ddp")
    if machines < 1 or processes < machines or processes % machines:
        why = f"{processes} processes cannot be split evenly over {machines} machines"
        raise ValueError(f"num_processes: {why}")
    if not 0 <= machine_rank < machines:
        raise ValueError(f"machine_rank: must be in 0..{machines - 1}")
    if machines > 1 and not main_ip:
        raise ValueError("main_process_ip: a run over several machines needs the main node's IP")
    if strategy == "deepspeed" and zero_stage not in ZERO_STAGES:
        raise ValueError(f"zero_stage: must be one of {', '.join(map(str, ZERO_STAGES))}")
