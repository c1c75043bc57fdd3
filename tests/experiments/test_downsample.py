"""Min-max downsampling of a metric's series (pure)."""

from experiments.downsample import minmax_buckets


def series(values):
    return list(enumerate(values))


def value(row):
    return row[1]


def test_it_keeps_every_point_when_they_fit():
    rows = series([1.0, 2.0, 3.0])
    assert minmax_buckets(rows, 3, value) == rows
    assert minmax_buckets(rows, 0, value) == rows


def test_it_keeps_at_most_max_points_with_the_first_and_the_last():
    rows = series([float(i % 7) for i in range(10_000)])
    kept = minmax_buckets(rows, 500, value)
    assert len(kept) <= 500
    assert kept[0] == rows[0] and kept[-1] == rows[-1]
    assert [r[0] for r in kept] == sorted({r[0] for r in kept})  # in step order, no repeats


def test_it_keeps_a_one_step_spike_and_dip():
    values = [0.0] * 100_000
    values[31_337], values[77_777] = 50.0, -9.0
    kept = minmax_buckets(series(values), 100, value)
    assert (31_337, 50.0) in kept and (77_777, -9.0) in kept


def test_it_keeps_a_gap_as_a_gap():
    values = [1.0] * 100 + [None] * 100 + [2.0] * 100
    kept = minmax_buckets(series(values), 20, value)
    assert any(v is None for _, v in kept)
    assert all(v is None for s, v in kept if 100 <= s < 200)


def test_it_handles_tiny_budgets():
    rows = series([3.0, 1.0, 2.0, 5.0])
    assert minmax_buckets(rows, 2, value) == [rows[0], rows[-1]]
    assert minmax_buckets(rows, 1, value) == [rows[0]]
