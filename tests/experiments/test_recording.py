"""What a training job records: metrics with a summary, bounded rollouts, checkpoints, logs."""

from __future__ import annotations

import logging
import shutil
from unittest import mock

import pytest

from experiments.adapters import PoolItem
from experiments.models import Checkpoint, MetricPoint, Rollout, Run
from experiments.services import experiments, runs
from experiments.services.recording import RunCheckpoints, RunLog, RunRecorder, Source
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from training.interfaces import Completion, RewardResult

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(owner, team, settings, tmp_path) -> Run:
    settings.RUNS_DIR = tmp_path / "runs"
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
        launched = runs.launch(owner, experiment)
    return runs.claim(launched.pk, "celery@here")


def recorder(run, groups=2) -> RunRecorder:
    return RunRecorder(run, rollout_groups=groups, sources={"digits": Source(7, 9)})


def test_it_keeps_the_last_value_of_every_metric_in_the_summary(run):
    sink = recorder(run)
    sink.log(1, {"reward/mean": 0.25, "eval/success": 0.5, "kl": float("nan")})
    sink.log(2, {"reward/mean": 0.75})
    sink.progress(2, 3, {})
    current = Run.objects.get(pk=run.pk)
    assert current.summary == {"reward/mean": 0.75, "eval/success": 0.5, "kl": None}
    assert current.step == 2
    assert MetricPoint.objects.filter(run=run).count() == 4


def completions(groups: int, size: int = 2) -> list[Completion]:
    item = PoolItem("sort 21=", {"answer": "12"}, "digits", 2, task_hash="f" * 64)
    details = {"layers": [{"name": "answer", "passed": False, "detail": "x" * 5000}]}
    result = RewardResult(0.0, False, {"outcome": 0.0}, "wrong_answer", details)
    return [Completion(item, "21", result, g, s, -0.5) for g in range(groups) for s in range(size)]


def test_it_stores_a_bounded_number_of_groups_traced_to_their_sources(run):
    sink = recorder(run, groups=2)
    sink.rollouts(3, completions(groups=5))
    sink.rollouts(3, completions(groups=5))  # a step recorded again overwrites, never doubles
    rows = Rollout.objects.filter(run=run)
    assert rows.count() == 2 * 2
    row = rows.first()
    assert (row.pool_version, row.verifier_version, row.task_hash) == (7, 9, "f" * 64)
    assert (row.error_type, row.advantage, row.parts) == ("wrong_answer", -0.5, {"outcome": 0.0})
    assert len(row.layers[0]["detail"]) == 2000


def test_it_stops_when_cancel_is_asked(run):
    sink = recorder(run)
    assert not sink.should_stop()
    Run.objects.filter(pk=run.pk).update(cancel_requested=True)
    assert sink.should_stop()


def test_it_resumes_from_the_newest_checkpoint_whose_files_remain(run):
    store = RunCheckpoints(run, keep=3)
    for step in (2, 4):
        path = store.new_dir(step)
        (path / "state.json").write_text("{}")
        store.saved(step, path, {"reward/mean": 0.5, "kl": float("inf")})
    assert store.latest().name == "step-000004" and store.latest_step() == 4
    assert Checkpoint.objects.get(run=run, step=4).metrics == {"reward/mean": 0.5, "kl": None}
    shutil.rmtree(store.latest())
    assert store.latest_step() == 2


def test_it_drops_the_rows_of_checkpoints_it_no_longer_keeps(run):
    store = RunCheckpoints(run, keep=2)
    for step in (1, 2, 3):
        path = store.new_dir(step)
        (path / "state.json").write_text("{}")
        store.saved(step, path, {})
    assert list(Checkpoint.objects.filter(run=run).values_list("step", flat=True)) == [2, 3]


def test_it_keeps_the_whole_log_in_the_run_folder_and_the_last_lines_on_the_row(run):
    with RunLog(run, lines=3) as log:
        for i in range(5):
            logging.getLogger("experiments.test").info("line %d", i)
        log.save_tail()
    tail = Run.objects.get(pk=run.pk).log_tail.splitlines()
    assert [line.rsplit(" ", 1)[-1] for line in tail] == ["2", "3", "4"]
    assert log.path.read_text().count("line ") == 5


def test_it_stores_completions_with_nul_characters_as_replacement_characters():
    from experiments.services.recording import storable

    assert storable("a\x00b") == "a\ufffdb"
    assert storable([{"detail": "x\x00", "n": 1}]) == [{"detail": "x\ufffd", "n": 1}]
