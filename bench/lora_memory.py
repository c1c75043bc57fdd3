"""Peak memory of a LoRA run against full fine-tuning of the same ~100M-parameter model.

Both sides train the same model (12 layers x 768, Llama-style, the demo's tokenizer: ~110M
parameters, fp32, on the CPU) with the same GRPO config: 2 steps of 2 prompts x 2
completions, a k3 KL term, AdamW. Full fine-tuning keeps a frozen copy of the model as the
KL reference and AdamW moments and gradients for every weight; LoRA (rank 16 on every
projection) keeps them for the adapters only and takes the reference from the same model
with the adapter switched off. Each side runs in a fresh process of its own; its peak
resident set size (`ru_maxrss`) is the figure, and the resident size right after the model
is loaded (the weights both sides hold) is reported beside it.

Prints one JSON line; `ratio` = full fine-tuning's peak over LoRA's (above 1: LoRA needs less).

    python bench/lora_memory.py
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training import digits  # noqa: E402
from training.config import GRPOConfig, ModelConfig, SamplingConfig  # noqa: E402
from training.engine import train  # noqa: E402
from training.lora import LoraConfig  # noqa: E402
from training.models import build_tiny_model, load_model, save_model, train_tokenizer  # noqa: E402

LAYERS, WIDTH, RANK = 12, 768, 16
KIB_PER_MB = 1024  # ru_maxrss is in KiB on Linux


def rss_mb() -> float:
    """Resident set size now, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / KIB_PER_MB
    raise RuntimeError("no VmRSS in /proc/self/status")


def side(base: Path, lora: bool) -> dict[str, float]:
    """One side's run, in this process: its peak and loaded-model RSS, and what it trained."""
    torch.set_num_threads(2)
    model_config = ModelConfig(path=str(base), lora=LoraConfig(rank=RANK if lora else 0))
    model, tokenizer = load_model(ModelConfig(path=str(base)))
    loaded = rss_mb()
    config = GRPOConfig(
        max_steps=2,
        prompts_per_step=2,
        group_size=2,
        kl_estimator="k3",
        kl_coef=0.05,
        learning_rate=1e-5,
        entropy_coef=0.01,  # every row goes through the backward pass
        sampling=SamplingConfig(max_new_tokens=4),
        model=model_config,
        cpu_threads=2,
    )
    result = train(
        config,
        sampler=digits.DigitSortSampler(2, 4, seed=0),
        reward_fn=digits.reward_fn,
        model=model,
        tokenizer=tokenizer,
    )
    trained = sum(p.numel() for p in result.model.parameters() if p.requires_grad)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / KIB_PER_MB
    return {"peak_mb": peak, "loaded_mb": loaded, "trained_params": trained}


def run_side(base: Path, lora: bool) -> dict[str, float]:
    args = [sys.executable, __file__, "--side", "lora" if lora else "full", "--base", str(base)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", choices=["lora", "full"])
    parser.add_argument("--base")
    args = parser.parse_args()
    if args.side:
        print(json.dumps(side(Path(args.base), args.side == "lora")))
        return
    with tempfile.TemporaryDirectory() as tmp:
        tokenizer = train_tokenizer(digits.corpus(500))
        model = build_tiny_model(tokenizer, LAYERS, WIDTH)
        params = sum(p.numel() for p in model.parameters())
        save_model(model, tokenizer, tmp)
        del model
        full = run_side(Path(tmp), lora=False)
        ours = run_side(Path(tmp), lora=True)
    print(
        json.dumps(
            {
                "bench": "lora_memory",
                "ours": round(ours["peak_mb"], 1),
                "anchor": round(full["peak_mb"], 1),
                "unit": "MB",
                "ratio": round(full["peak_mb"] / ours["peak_mb"], 3),
                "params": params,
                "lora_rank": RANK,
                "trained_params_lora": ours["trained_params"],
                "trained_params_full": full["trained_params"],
                "loaded_mb_lora": round(ours["loaded_mb"], 1),
                "loaded_mb_full": round(full["loaded_mb"], 1),
                "above_loaded_mb_lora": round(ours["peak_mb"] - ours["loaded_mb"], 1),
                "above_loaded_mb_full": round(full["peak_mb"] - full["loaded_mb"], 1),
            }
        )
    )


if __name__ == "__main__":
    main()
