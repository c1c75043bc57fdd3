"""bench/verify_humaneval.py on two problems: ours, the anchor and the trusted side report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tasks_app.datasets import HUMANEVAL_PATH
from tasks_app.sandbox import humaneval

BENCH = Path(__file__).resolve().parents[2] / "bench" / "verify_humaneval.py"


@pytest.mark.slow
def test_it_times_ours_the_anchor_and_the_trusted_side_on_the_same_items(tmp_path: Path):
    data = tmp_path / "two.jsonl"
    data.write_text("".join(json.dumps(p) + "\n" for p in humaneval.load(HUMANEVAL_PATH)[:2]))
    command = [sys.executable, str(BENCH), "--data", str(data), "--workers", "1", "--rounds", "1"]
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=300)
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["bench"] == "verify_humaneval" and line["total"] == 4
    assert line["ours_correct"] == line["anchor_correct"] == 4 and line["ours_wrong"] == []
    if line["trusted"] is None:  # a checkout without the reference revision's history
        assert "git cannot archive" in line["trusted_skipped"]
        return
    assert line["trusted_correct"] == 4
    assert line["vs_trusted"] == pytest.approx(line["ours"] / line["trusted"], rel=0.01)
