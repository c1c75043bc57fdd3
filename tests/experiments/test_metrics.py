"""Writing and reading metric points: idempotent upserts, sequence numbers, downsampling."""

import threading

import pytest
from django.db import connection, transaction

from experiments.models import MetricPoint, RunState
from experiments.services import metric_queries, metrics
from experiments.services.metrics import Point

from .metrics_setup import make_run

pytestmark = pytest.mark.django_db


def points(key: str, steps, value: float = 1.0, wall_time: float = 100.0):
    return [Point(key, s, value + s, wall_time, None) for s in steps]


def test_it_writes_a_batch_and_returns_the_runs_sequence_numbers(team):
    run = make_run(team)
    first = metrics.write_points(run, points("kl", range(3)))
    second = metrics.write_points(run, points("kl", range(3, 5)))
    assert (first.count, first.prev_seq) == (3, 0)
    assert second.prev_seq == first.seq and second.seq > first.seq
    assert metric_queries.last_seq(run.pk) == second.seq


def test_it_overwrites_a_resent_point_under_a_new_sequence_number(team):
    run = make_run(team)
    written = metrics.write_points(run, points("kl", range(3)))
    again = metrics.write_points(run, [Point("kl", 1, 42.0, 200.0, 7)])
    rows = list(MetricPoint.objects.filter(run=run).order_by("step").values_list("step", "value"))
    assert rows == [(0, 1.0), (1, 42.0), (2, 3.0)]
    after = metric_queries.read_series(run.pk, since=written.seq)
    assert after.series["kl"].step == [1] and after.series["kl"].value == [42.0]
    assert after.seq == again.seq


def test_it_leaves_a_point_resent_with_its_stored_value_under_its_old_sequence_number(team):
    run = make_run(team)
    first = metrics.write_points(run, points("kl", range(31, 36)))
    # A resumed run recomputes 31-35 from its checkpoint (same values, later), then goes on.
    resumed = metrics.write_points(run, points("kl", range(31, 37), wall_time=500.0))
    assert (resumed.count, resumed.prev_seq) == (1, first.seq)
    assert metric_queries.read_series(run.pk, since=first.seq).series["kl"].step == [36]
    retried = metrics.write_points(run, points("kl", range(31, 37), wall_time=900.0))
    assert (retried.count, retried.seq) == (0, resumed.seq)
    assert MetricPoint.objects.filter(run=run).count() == 6
    # What was stored first stays, wall time included.
    assert MetricPoint.objects.get(run=run, step=31).wall_time == 100.0


def test_it_accepts_steps_out_of_order(team):
    run = make_run(team)
    metrics.write_points(run, points("kl", [5, 9]))
    metrics.write_points(run, points("kl", [1, 7]))
    assert metric_queries.read_series(run.pk).series["kl"].step == [1, 5, 7, 9]


def test_it_refuses_a_finished_run_only_when_asked(team):
    run = make_run(team, state=RunState.SUCCEEDED)
    with pytest.raises(metrics.RunFinished, match="succeeded"):
        metrics.write_points(run, points("kl", [0]), refuse_finished=True)
    assert not MetricPoint.objects.filter(run=run).exists()
    # The worker's own sink may still write the last step of a run it just finished.
    assert metrics.record_points(run, points("kl", [0])) == 1


def test_it_downsamples_each_key_and_lists_every_key(team):
    run = make_run(team)
    metrics.write_points(run, points("kl", range(1000)))
    metrics.write_points(run, points("reward/mean", range(10)))
    snapshot = metric_queries.read_series(run.pk, max_points=100)
    kl = snapshot.series["kl"]
    assert len(kl.step) <= 100 and kl.total == 1000 and kl.downsampled
    assert kl.step[0] == 0 and kl.step[-1] == 999
    assert not snapshot.series["reward/mean"].downsampled
    assert metric_queries.keys_of(run.pk) == ["kl", "reward/mean"]
    only = metric_queries.read_series(run.pk, keys=["reward/mean", "missing"])
    assert set(only.series) == {"reward/mean", "missing"} and only.series["missing"].step == []


def test_it_pages_through_a_key_at_full_resolution(team):
    run = make_run(team)
    metrics.write_points(run, points("kl", range(25)))
    first = metric_queries.read_raw(run.pk, "kl", limit=10)
    second = metric_queries.read_raw(run.pk, "kl", after_step=first.step[-1], limit=10)
    assert first.step == list(range(10)) and second.step == list(range(10, 20))


def test_it_keeps_the_points_of_other_runs_apart(team):
    run, other = make_run(team), make_run(team, name="other")
    metrics.write_points(other, points("kl", range(3)))
    assert metric_queries.last_seq(run.pk) == 0
    assert metric_queries.read_series(run.pk).series == {}


@pytest.mark.django_db(transaction=True)
def test_it_serializes_writers_of_one_run_so_sequence_numbers_appear_in_order(team):
    # A reader that asks "after seq" must never miss a row that commits later with a lower id:
    # a second writer of the same run waits for the first to commit before taking ids.
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serializes every writer by itself")
    run = make_run(team)
    first_wrote, release, second_done = threading.Event(), threading.Event(), threading.Event()
    written = {}

    def first() -> None:
        with transaction.atomic():
            written["first"] = metrics.write_points(run, points("kl", range(5)))
            first_wrote.set()
            release.wait(10)
        connection.close()

    def second() -> None:
        first_wrote.wait(10)
        written["second"] = metrics.write_points(run, points("entropy", range(5)))
        second_done.set()
        connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    assert first_wrote.wait(10)
    assert not second_done.wait(0.5), "the second writer should wait for the first to commit"
    release.set()
    for thread in threads:
        thread.join(10)
    assert written["second"].prev_seq == written["first"].seq
    assert written["second"].seq > written["first"].seq
