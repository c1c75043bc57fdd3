"""Run by tests/training/test_sharded_update.py under `accelerate launch` with an FSDP or a
DeepSpeed config (GPUs only): `sharded_update.py BASE_DIR OUT.json vllm|accumulate`.

`vllm`: the engine refuses the vLLM backend under FSDP, naming the field. `accumulate`: one
GRPO step of four micro-batches steps DeepSpeed's engine once (it reaches its accumulation
boundary on the last micro-batch only)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from training import digits, grpo
from training.config import GRPOConfig, ModelConfig, SamplingConfig
from training.models import load_model
from training.step import build_run


def main(base_dir: str, out: str, what: str) -> None:
    model, tokenizer = load_model(ModelConfig(path=base_dir))
    backend = "vllm" if what == "vllm" else "hf"
    config = GRPOConfig(
        max_steps=1, prompts_per_step=2, group_size=4, micro_batch_size=2,
        gradient_accumulation_steps=4, skip_zero_advantage=False,
        sampling=SamplingConfig(max_new_tokens=8, backend=backend),
    )  # fmt: skip
    sampler = digits.DigitSortSampler(3, 4, seed=0)
    result: dict[str, object] = {}
    try:
        run = build_run(config, model, tokenizer, sampler, digits.reward_fn)
    except ValueError as exc:
        result["refused"] = str(exc)
    else:
        grpo.train_step(run)
        engine = run.accelerator.deepspeed_engine_wrapped.engine
        result["global_steps"] = engine.global_steps
    Path(out).write_text(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:4])
