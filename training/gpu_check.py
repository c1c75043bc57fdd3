"""The GPU path, measured; `scripts/gpu_check.sh` runs it on a CUDA machine.

    python -m training.gpu_check probe
        exit 0 and name the device when CUDA is usable; exit 1 saying why not
    python -m training.gpu_check measure --out DIR [--steps 5]
        GRPO on a ~100M-parameter model (12 layers x 768, the tiny model's tokenizer) in bf16;
        prints one JSON line (generation and update tokens/s, peak GPU memory, model FLOP
        utilisation) and leaves its last checkpoint under DIR/checkpoints
    accelerate launch --num_processes 1 -m training.gpu_check resume --out DIR
        resumes from that checkpoint under accelerate, trains two more steps, prints one JSON
        line, and exits 1 unless the step count and the optimizer state went on from it
    python -m training.gpu_check fsdp-config --out FILE
        writes the accelerate config (FSDP, full shard at Qwen2DecoderLayer, bf16) of the next
    accelerate launch --config_file FILE -m training.gpu_check chat-lora --out DIR
        GRPO with LoRA (rank 16) on a Qwen2-architecture model of the same size in chat
        format, under FSDP; one JSON line of the same figures
    python -m training.gpu_check chat-lora --out DIR --backend vllm
        the same run generating with vLLM colocated (needs the `vllm` extra)

Model FLOP utilisation (PaLM, Chowdhery et al. 2022, appendix B) counts 6 x parameters FLOPs
per trained token (forward and backward) and 2 x parameters per generated token, over the
device's dense bf16 peak. The first step (CUDA start-up, kernel selection) is left out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

import torch
from accelerate import PartialState

from training import digits, tiny_models
from training.accelerate_config import accelerate_config, to_yaml
from training.config import GRPOConfig, ModelConfig, SamplingConfig
from training.engine import TrainResult, train
from training.interfaces import Completion, DirectoryStore, Item, MemorySink, RewardResult
from training.lora import LoraConfig
from training.prompting import RAW_FORMAT, PromptFormat, encode

LAYERS, WIDTH = 12, 768
PROMPTS, GROUP, MICRO, MAX_NEW_TOKENS = 64, 8, 64, 96
RESUME_STEPS = 2
CHAT_ARCH, CHAT_LAYER, LORA_RANK = "qwen2", "Qwen2DecoderLayer", 16
CHAT = PromptFormat(kind="chat")
PEAK_BF16_FLOPS = (
    # Dense (no sparsity) bf16 tensor-core peaks from the vendors' datasheets, matched in
    # order against torch.cuda.get_device_name(); GPU_PEAK_FLOPS overrides them.
    ("H100 PCIe", 756e12),
    ("H100", 989e12),
    ("H200", 989e12),
    ("GH200", 989e12),
    ("A100", 312e12),
    ("L40S", 362e12),
    ("L4", 121e12),
    ("A10", 125e12),
)


def peak_bf16_flops(device_name: str) -> float | None:
    """The device's dense bf16 peak in FLOP/s: GPU_PEAK_FLOPS, else the table; None if unknown."""
    if os.environ.get("GPU_PEAK_FLOPS"):
        return float(os.environ["GPU_PEAK_FLOPS"])
    return next((flops for name, flops in PEAK_BF16_FLOPS if name in device_name), None)


def mfu(flops_per_token: float, tokens: float, seconds: float, peak: float | None) -> float | None:
    """Achieved FLOP/s over the peak; None when the peak is unknown or nothing was timed."""
    if peak is None or seconds <= 0:
        return None
    return flops_per_token * tokens / seconds / peak


def cuda_problem() -> str | None:
    """Why this process cannot train on CUDA, or None."""
    if torch.version.cuda is None:
        return f"no CUDA device: this torch build ({torch.__version__}) has no CUDA support"
    if not torch.cuda.is_available():
        return "no CUDA device: torch.cuda.is_available() is False"
    if not torch.cuda.is_bf16_supported():
        return f"{torch.cuda.get_device_name()} has no bf16 support"
    return None


def coin_flip_reward(items: Sequence[Item], completions: Sequence[str]) -> list[RewardResult]:
    """1 or 0 from a hash of the completion: the untrained model's groups all have mixed
    rewards, so every row goes through the update and the measurement covers all of it."""
    flips = [zlib.crc32(text.encode()) % 2 for text in completions]
    return [RewardResult(float(flip), passed=bool(flip)) for flip in flips]


def config(max_steps: int, model: ModelConfig | None = None, backend: str = "engine") -> GRPOConfig:
    return GRPOConfig(
        max_steps=max_steps,
        prompts_per_step=PROMPTS,
        group_size=GROUP,
        micro_batch_size=MICRO,
        gradient_accumulation_steps=PROMPTS * GROUP // MICRO,  # one optimizer step a step
        learning_rate=1e-5,
        mixed_precision="bf16",
        sampling=SamplingConfig(max_new_tokens=MAX_NEW_TOKENS, backend=backend),
        model=model or ModelConfig(tiny_layers=LAYERS, tiny_width=WIDTH),
    )


def chat_lora_model(out: Path) -> ModelConfig:
    """A Qwen2-architecture model of LAYERS x WIDTH (62M parameters: grouped-query attention,
    MLP 2 x WIDTH) with a chat tokenizer, built under `out` once (random weights: the check
    measures speed, not learning), LoRA on every projection."""
    path = out / f"tiny-{CHAT_ARCH}"
    if not (path / "config.json").exists():
        tiny_models.build(
            CHAT_ARCH,
            path,
            hidden=WIDTH,
            layers=LAYERS,
            heads=12,
            kv_heads=4,
        )
    return ModelConfig(path=str(path), lora=LoraConfig(rank=LORA_RANK, alpha=2 * LORA_RANK))


def fsdp_config_yaml() -> str:
    """The accelerate config of the chat-lora check: FSDP on 1 process, bf16."""
    return to_yaml(accelerate_config("fsdp", 1, layer_classes=[CHAT_LAYER]))


class Rows:
    """A rollout sink keeping each step's (prompt, completion tokens) pairs."""

    def __init__(self, prompt_format: PromptFormat = RAW_FORMAT) -> None:
        self.steps: dict[int, list[tuple[str, int]]] = {}
        self.prompt_format = prompt_format

    def rollouts(self, step: int, completions: Sequence[Completion]) -> None:
        self.steps[step] = [(c.item.prompt, c.tokens) for c in completions]

    def trained_tokens(self, step: int, result: TrainResult) -> int:
        """Prompt plus completion tokens of the step's rows: what the update runs on."""
        return sum(
            len(encode(result.tokenizer, prompt, self.prompt_format)) + tokens
            for prompt, tokens in self.steps[step]
        )


def train_for(
    out: Path,
    max_steps: int,
    grpo: GRPOConfig | None = None,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> tuple[TrainResult, MemorySink, Rows]:
    sink, rows = MemorySink(), Rows(prompt_format)
    result = train(
        grpo or config(max_steps),
        sampler=digits.DigitSortSampler(2, 8, seed=0),
        reward_fn=coin_flip_reward,
        sink=sink,
        store=DirectoryStore(out / "checkpoints"),
        corpus=digits.corpus(500),
        rollout_sink=rows,
        prompt_format=prompt_format,
    )
    return result, sink, rows


def measure(out: Path, steps: int) -> dict:
    """Train `steps` steps; figures over all but the first."""
    _fresh(out)
    torch.cuda.reset_peak_memory_stats()
    return {"check": "gpu_grpo_bf16", **figures(*train_for(out, steps))}


def chat_lora(out: Path, steps: int, backend: str) -> dict:
    """`measure` for LoRA on the chat Qwen2 model (under FSDP when launched so)."""
    _fresh(out)
    grpo = config(steps, chat_lora_model(out), backend)
    torch.cuda.reset_peak_memory_stats()
    result, sink, rows = train_for(out, steps, grpo, CHAT)
    return {
        "check": f"gpu_chat_lora_{backend}",
        "architecture": CHAT_ARCH,
        "processes": PartialState().num_processes,
        "distributed_type": PartialState().distributed_type.name,
        "trained_params": sum(p.numel() for p in result.model.parameters() if p.requires_grad),
        **figures(result, sink, rows),
    }


def _fresh(out: Path) -> None:
    if DirectoryStore(out / "checkpoints").latest() is not None:
        raise SystemExit(f"{out / 'checkpoints'} holds checkpoints: measure starts from scratch")


def figures(result: TrainResult, sink: MemorySink, rows: Rows) -> dict:
    """Throughput, memory and utilisation over all logged steps but the first."""
    measured = sink.rows[1:]
    params = sum(p.numel() for p in result.model.parameters())
    generated = sum(m["perf/tokens_per_s"] * m["perf/step_s"] for _, m in measured)
    trained = sum(rows.trained_tokens(step, result) for step, _ in measured)
    seconds = {
        phase: sum(m.get(f"time/{phase}_s", 0.0) for _, m in measured)
        for phase in ("generation", "verification", "update", "behaviour_logprobs")
    }
    step_s = sum(m["perf/step_s"] for _, m in measured)
    name = torch.cuda.get_device_name()
    peak = peak_bf16_flops(name)
    return {
        "device": name,
        "params": params,
        "steps_measured": len(measured),
        "rows_per_step": PROMPTS * GROUP,
        "generation_tokens_per_s": round(generated / seconds["generation"], 1),
        "update_tokens_per_s": round(trained / seconds["update"], 1),
        "peak_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2),
        "mfu_update": _rounded(mfu(6 * params, trained, seconds["update"], peak)),
        "mfu_generation": _rounded(mfu(2 * params, generated, seconds["generation"], peak)),
        "mfu_step": _rounded(mfu(6 * params, trained, step_s, peak)),
        "peak_bf16_flops": peak,
        "time_split_s": {phase: round(s, 2) for phase, s in seconds.items()},
        "logprob_gap_max": max(m.get("logprob_gap/max", 0.0) for _, m in measured),
    }


def resume(out: Path) -> tuple[dict, bool]:
    """Resume from the newest checkpoint under `out` and train RESUME_STEPS more steps."""
    latest = DirectoryStore(out / "checkpoints").latest()
    if latest is None:
        raise SystemExit(f"no checkpoint under {out / 'checkpoints'}: run `measure` first")
    start = json.loads((latest / "state.json").read_text())["step"]
    result, sink, _ = train_for(out, start + RESUME_STEPS)
    final = DirectoryStore(out / "checkpoints").latest()
    assert final is not None
    figures = {
        "check": "gpu_accelerate_resume",
        "processes": PartialState().num_processes,
        "device": str(next(result.model.parameters()).device),
        "from_step": start,
        "steps_logged": [step for step, _ in sink.rows],
        "adam_steps": {"before": adam_steps(latest), "after": adam_steps(final)},
    }
    expected = list(range(start + 1, start + RESUME_STEPS + 1))
    went_on = adam_steps(latest) + RESUME_STEPS * config(1).optimizer_steps_per_step
    ok = (
        figures["steps_logged"] == expected
        and figures["adam_steps"]["after"] == went_on  # from the checkpoint's count, not 0
        and figures["device"].startswith("cuda")
    )
    return {**figures, "ok": ok}, ok


def adam_steps(checkpoint: Path) -> int:
    """The step count AdamW keeps in a checkpoint's optimizer state (rank 0's)."""
    state = torch.load(checkpoint / "optimizer-rank0.pt", weights_only=False)["state"]
    return int(next(iter(state.values()))["step"])


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.gpu_check", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("probe", help="exit 0 when CUDA can train in bf16, 1 saying why not")
    commands.add_parser("fsdp-config", help="the chat-lora check's accelerate config").add_argument(
        "--out", type=Path, required=True, help="the YAML file to write"
    )
    for name in ("measure", "resume", "chat-lora"):
        command = commands.add_parser(name)
        command.add_argument("--out", type=Path, required=True, help="checkpoints go here")
        if name != "resume":
            command.add_argument("--steps", type=int, default=5, help="the first is warm-up")
        if name == "chat-lora":
            command.add_argument("--backend", choices=("engine", "vllm"), default="engine")
    args = parser.parse_args(argv)
    if args.command == "fsdp-config":
        args.out.write_text(fsdp_config_yaml())
        return 0
    problem = cuda_problem()
    if args.command == "probe" or problem is not None:
        print(problem or f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
        return 1 if problem else 0
    if args.command in ("measure", "chat-lora"):
        done = (
            measure(args.out, args.steps)
            if args.command == "measure"
            else chat_lora(args.out, args.steps, args.backend)
        )
        print(json.dumps(done), flush=True)
        return 0
    figures, ok = resume(args.out)
    print(json.dumps(figures), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
