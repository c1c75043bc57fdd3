"""Targets that test_launch.py runs on every rank through ``experiments.launch``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from experiments import launch


def record(run_id: int) -> str:
    """Write what this rank saw: its rank, the world, and that Django was set up."""
    from django.apps import apps

    rank = launch.process_rank()
    seen = {
        "run": run_id,
        "rank": rank,
        "main": launch.is_main_process(),
        "world": int(os.environ["WORLD_SIZE"]),
        "django_ready": apps.ready,
        "cuda_visible": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    (Path(os.environ["LAUNCH_TEST_OUT"]) / f"rank{rank}.json").write_text(json.dumps(seen))
    print(f"rank {rank} trained run {run_id}", flush=True)
    return f"succeeded on rank {rank}"


def fail_on_second_rank(run_id: int) -> None:
    if launch.process_rank() == 1:
        raise ValueError("rank 1 could not load its shard")
