"""On GPUs, under `accelerate launch`: the engine refuses vLLM generation under FSDP by name,
and DeepSpeed's engine steps once per optimizer step when micro-batches accumulate. Skipped
with the reason on a machine without CUDA (or without deepspeed); on a CPU the validation
that refuses vLLM under FSDP is tests/experiments/test_config.py's, and accumulation through
accelerate's accumulate() is tests/training/test_grpo.py's."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from training.accelerate_config import accelerate_config, to_yaml

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("sharded_update.py")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="FSDP and DeepSpeed need a GPU"),
]


def launch(tmp_path: Path, strategy: str, base_dir: Path, what: str) -> dict[str, object]:
    config = tmp_path / "accelerate.yaml"
    config.write_text(to_yaml(accelerate_config(strategy, 1)))
    out = tmp_path / "out.json"
    command = [
        sys.executable, "-m", "accelerate.commands.launch", f"--config_file={config}",
        str(SCRIPT), str(base_dir), str(out), what,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=500)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return json.loads(out.read_text())


def test_the_engine_refuses_vllm_generation_under_fsdp(tmp_path, base_dir):
    result = launch(tmp_path, "fsdp", base_dir, "vllm")
    assert str(result.get("refused", "")).startswith("sampling.backend: vllm cannot generate")


@pytest.mark.skipif(importlib.util.find_spec("deepspeed") is None, reason="needs deepspeed")
def test_deepspeed_steps_once_per_optimizer_step_of_accumulated_micro_batches(tmp_path, base_dir):
    assert launch(tmp_path, "deepspeed", base_dir, "accumulate") == {"global_steps": 1}
