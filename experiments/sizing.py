"""Whether a worker can take a run: its processes, strategy, memory and time against what the
worker advertised in its heartbeat.

Pure Python (no Django). The step's memory and compute come from the engine's estimate
(``training.budget``), the model's size from the worker's catalogue entry; each problem is a
(field, reason) pair naming the configuration field to change and the limit it meets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from training.budget import ModelShape, StepEstimate, estimate_step

from .config import ExperimentConfig

GPU_PEAK_FLOPS = 1e15
"""FLOP/s of one GPU at best (dense bf16 of the fastest current accelerators): time is
checked against a machine at least this fast, so only a run no GPU could finish is refused."""
CPU_CORE_PEAK_FLOPS = 2e11
"""FLOP/s of one CPU core at best (two 512-bit FMA units at 3 GHz in fp32)."""
GB = 1e9


@dataclass(frozen=True)
class Offer:
    """What one running worker offers a run of a given model."""

    gpus: int
    gpu_memory: int | None
    """Bytes of its smallest visible GPU (a rank gets one each); None: not advertised."""
    memory: int | None
    """Bytes of host memory it offers runs; None: not advertised (an older worker)."""
    cpus: int | None
    parameters: int | None
    shape: dict[str, Any] | None

    @classmethod
    def of(cls, devices: dict[str, Any], entry: dict[str, Any]) -> Offer:
        sizes = [int(s) for s in devices.get("gpu_memory") or [] if s]
        return cls(
            gpus=int(devices.get("cuda") or 0),
            gpu_memory=min(sizes) if sizes else None,
            memory=devices.get("memory") or None,
            cpus=int(devices["cpu"]) if devices.get("cpu") else None,
            parameters=entry.get("parameters"),
            shape=entry.get("shape"),
        )

    @property
    def per_process_memory(self) -> int | None:
        return self.gpu_memory if self.gpus else self.memory

    def flops(self, processes: int) -> float:
        if self.gpus:
            return GPU_PEAK_FLOPS * min(processes, self.gpus)
        return CPU_CORE_PEAK_FLOPS * (self.cpus or 1)


def estimate(config: ExperimentConfig, offer: Offer) -> StepEstimate | None:
    """The step's estimate on this worker's copy of the model; None when its size is unknown."""
    if not offer.parameters:
        return None
    shape = ModelShape.from_dict(int(offer.parameters), offer.shape)
    return estimate_step(
        config.engine_config(), shape, processes=config.num_processes, strategy=config.strategy
    )


def problems(
    config: ExperimentConfig, offer: Offer, time_limit_s: float
) -> list[tuple[str, str]]:
    """Why this worker cannot run ``config``; empty when it can (or cannot tell)."""
    found = _device_problems(config, offer)
    step = estimate(config, offer)
    if step is None:
        return found
    need = _memory_need(config, offer, step)
    have = offer.per_process_memory if offer.gpus else offer.memory
    if need is not None and have is not None and need > have:
        found.append((step.largest.field, memory_reason(config, offer, step, have)))
    seconds = step.seconds(offer.flops(config.num_processes)) * config.engine_config().max_steps
    if seconds > time_limit_s:
        found.append(("hyperparameters.max_steps", time_reason(config, seconds, time_limit_s)))
    return found


def _device_problems(config: ExperimentConfig, offer: Offer) -> list[tuple[str, str]]:
    processes, strategy = config.num_processes, config.strategy
    if not offer.gpus and strategy != "ddp":
        why = f"{strategy} shards the model over GPUs and the worker has none; on CPUs use ddp"
        return [("strategy", why)]
    have, kind = (offer.gpus, "GPUs") if offer.gpus else (offer.cpus, "CPU cores")
    if have and processes > have:
        return [("num_processes", f"{processes} processes need {processes} {kind}; at most {have}")]
    return []


def _memory_need(config: ExperimentConfig, offer: Offer, step: StepEstimate) -> int | None:
    """Bytes the run needs of the memory the comparison is made against: one GPU's per rank,
    or the host's for all ranks together on a CPU worker."""
    if offer.gpus:
        return step.peak_bytes
    return step.peak_bytes * config.num_processes


def memory_reason(
    config: ExperimentConfig, offer: Offer, step: StepEstimate, have: int
) -> str:
    part = step.largest
    where = "of GPU memory per process" if offer.gpus else "of memory"
    several = config.num_processes > 1 and not offer.gpus
    ranks = f" x {config.num_processes} processes" if several else ""
    return (
        f"a step needs about {_gb(step.peak_bytes)}{ranks}, mostly {part.name} "
        f"({_gb(part.bytes)}); the largest worker offers {_gb(have)} {where}"
    )


def time_reason(config: ExperimentConfig, seconds: float, limit_s: float) -> str:
    steps = config.engine_config().max_steps
    return (
        f"{steps} steps take at least {seconds / 3600:.0f} h on the fastest worker; a run may "
        f"last at most {limit_s / 3600:.0f} h"
    )


def _gb(size: float) -> str:
    return f"{size / GB:.1f} GB" if size < 10 * GB else f"{size / GB:.0f} GB"
