"""bench/rl_env_vs_trl.py at a tiny size: the base is built, both sides play episodes, train
a step and report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "rl_env_vs_trl.py"
SIZE = ["--sft-steps", "5", "--held-out", "16"]


@pytest.mark.slow
def test_it_runs_one_step_of_ours_and_of_trl_on_episodes_and_prints_the_comparison():
    command = [sys.executable, str(BENCH), "--steps", "1", "--seeds", "0", *SIZE]
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=900)
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["bench"] == "rl_env_vs_trl" and line["unit"] == "episodes/s"
    assert line["ours"] > 0 and line["anchor"] > 0
    assert line["ratio"] == pytest.approx(line["ours"] / line["anchor"], rel=0.01)
    for side in ("ours", "anchor", "base"):
        assert 0 <= line[f"heldout_{side}_mean"] <= 1
        assert 1 <= line[f"turns_{side}_mean"] <= 7  # every held-out episode plays a turn or more
    for side in ("ours", "anchor"):
        assert line[f"peak_rss_mb_{side}_mean"] > 100  # each side's own process: torch and all
        assert line[f"time_split_{side}_generation_s_mean"] > 0
    assert line["steps"] == 1 and line["seeds"] == [0] and line["held_out"] == 16
