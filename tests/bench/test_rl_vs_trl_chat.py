"""bench/rl_vs_trl_chat.py at a tiny size: both sides start, train a step and report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "rl_vs_trl_chat.py"
SIZE = ["--hidden", "32", "--layers", "1", "--sft-steps", "5"]


@pytest.mark.slow
def test_it_runs_one_step_of_ours_and_of_trl_and_prints_the_comparison():
    command = [sys.executable, str(BENCH), "--steps", "1", "--seeds", "0", *SIZE]
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600)
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["bench"] == "rl_vs_trl_chat" and line["unit"] == "completions/s"
    assert line["ours"] > 0 and line["anchor"] > 0
    assert line["ratio"] == pytest.approx(line["ours"] / line["anchor"], rel=0.01)
    for side in ("ours", "anchor"):
        assert 0 <= line[f"heldout_{side}_mean"] <= 1
        assert line[f"peak_rss_mb_{side}_mean"] > 100  # each side's own process: torch and all
        assert line[f"time_split_{side}_generation_s_mean"] > 0
    assert line["steps"] == 1 and line["seeds"] == [0] and line["parameters"] > 0
