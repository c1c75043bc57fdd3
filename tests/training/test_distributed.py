"""Two processes under `accelerate launch` (CPU, gloo) keep one curriculum state between them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.training.distributed_curriculum import GROUP, PROMPTS, STEPS

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("distributed_curriculum.py")
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch(out: Path, processes: int, *args: str) -> subprocess.CompletedProcess[str]:
    # accelerate's torchrun launcher (--multi_gpu) starts the processes; with no GPU visible
    # the engine's Accelerator(cpu=True) joins them over gloo.
    command = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--multi_gpu",
        f"--num_processes={processes}",
        "--num_machines=1",
        "--mixed_precision=no",
        "--dynamo_backend=no",
        f"--main_process_port={free_port()}",
        str(SCRIPT),
        str(out),
        *args,
    ]
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)


def test_it_keeps_the_curriculum_state_and_the_stop_identical_on_every_rank(tmp_path: Path) -> None:
    done = launch(tmp_path, processes=2)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    first, second = (json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1))

    assert (first["world"], first["backend"]) == (2, "gloo")
    assert first["sampler"] == second["sampler"]
    # The main process's sink asked to stop; the other rank stopped at the same step.
    assert first["steps"] == second["steps"] == STEPS
    assert [p.name for p in (tmp_path / "checkpoints").iterdir()] == ["step-000002"]
    # Each observed the whole step's batch, both ranks' rows, not only its own share.
    assert first["sampler"]["observed"] == STEPS * PROMPTS * GROUP


def test_it_refills_flat_groups_in_rounds_every_rank_agrees_on(tmp_path: Path) -> None:
    done = launch(tmp_path, 2, "dynamic")
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    first, second = (json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1))
    assert first["steps"] == second["steps"] == STEPS
    # The same draws and the same verdicts, refills included, observed on both ranks.
    assert first["sampler"] == second["sampler"]
    metrics = [row for _, row in first["metrics"]]
    generated = sum(m["dynamic_sampling/prompts_generated"] for m in metrics)
    assert first["sampler"]["observed"] == generated * GROUP
    assert max(m["dynamic_sampling/rounds"] for m in metrics) > 1
    assert all(m["dynamic_sampling/fill_rate"] == 1.0 for m in metrics)
