import json

import pytest

from training.cli import main
from training.demo import DemoSettings, run_seeds, summarize


def test_it_summarizes_the_seeds_lifts_and_seconds():
    runs = [
        {"seed": 0, "before": 0.40, "after": 0.70, "seconds": 100.0},
        {"seed": 1, "before": 0.50, "after": 0.70, "seconds": 110.0},
        {"seed": 2, "before": 0.45, "after": 0.85, "seconds": 120.0},
    ]
    summary = summarize(runs)
    assert [run["lift"] for run in summary["runs"]] == [0.3, 0.2, 0.4]
    assert [run["seed"] for run in summary["runs"]] == [0, 1, 2]
    assert summary["mean_lift"] == 0.3
    assert (summary["min_lift"], summary["max_lift"]) == (0.2, 0.4)
    assert summary["std_lift"] == pytest.approx(0.0816, abs=1e-4)  # population std
    assert summary["mean_seconds"] == 110.0 and summary["max_seconds"] == 120.0


def test_one_seed_has_no_spread():
    summary = summarize([{"seed": 4, "before": 0.5, "after": 0.25, "seconds": 9.0}])
    assert summary["mean_lift"] == summary["min_lift"] == summary["max_lift"] == -0.25
    assert summary["std_lift"] == 0.0


def test_it_runs_the_seeds_one_after_another_and_prints_the_summary_last(capsys):
    settings = DemoSettings(
        sft_steps=21, grpo_steps=1, prompts_per_step=2, group_size=2, held_out=8, seed=3
    )
    summary = run_seeds(settings, 2, progress_bar=False)
    assert [run["seed"] for run in summary["runs"]] == [3, 4]
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert json.loads(last) == summary
    lifts = [run["after"] - run["before"] for run in summary["runs"]]
    assert summary["mean_lift"] == pytest.approx(sum(lifts) / 2, abs=1e-4)


def test_it_refuses_fewer_than_one_seed():
    with pytest.raises(SystemExit):
        main(["demo", "--seeds", "0"])
