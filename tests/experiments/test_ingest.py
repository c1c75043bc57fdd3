"""Checking ingest batches item by item (pure: no database)."""

from experiments.ingest import check_batch, check_item

NOW = 1_700_000_000.0


def codes(item) -> dict[str | None, str]:
    return {p.field: p.code for p in check_item(item)}


def test_it_accepts_a_point_and_stamps_it_with_the_servers_time_when_it_brings_none():
    checked = check_batch([{"key": "reward/mean", "step": 3, "value": 0.5, "tokens": 120}], now=NOW)
    assert not checked.refused
    point = checked.points[0]
    assert (point.key, point.step, point.value, point.wall_time, point.tokens) == (
        "reward/mean",
        3,
        0.5,
        NOW,
        120,
    )


def test_it_keeps_the_trainers_wall_time():
    checked = check_batch([{"key": "kl", "step": 1, "value": 1, "wall_time": 12.5}], now=NOW)
    assert checked.points[0].wall_time == 12.5 and checked.points[0].value == 1.0


def test_it_refuses_bad_keys_saying_what_a_key_may_hold():
    for key in ["", " kl", "kl ", "a,b", "tab\there", "x" * 121, 7, None]:
        problems = check_item({"key": key, "step": 0, "value": 1.0})
        assert [p.field for p in problems] == ["key"], key
        assert "key" in problems[0].message
    for key in ["rewards/format/mean", "pass@1", "clip_ratio/low_mean", "eval_loss", "a b:c"]:
        assert check_item({"key": key, "step": 0, "value": 1.0}) == [], key


def test_it_refuses_a_negative_step_naming_the_step():
    problems = check_item({"key": "kl", "step": -3, "value": 1.0})
    assert [(p.field, p.code) for p in problems] == [("step", "min_value")]
    assert "-3" in problems[0].message
    assert codes({"key": "kl", "step": 1.5, "value": 1.0}) == {"step": "invalid"}
    assert codes({"key": "kl", "step": True, "value": 1.0}) == {"step": "invalid"}
    assert codes({"key": "kl", "step": 2**31, "value": 1.0}) == {"step": "max_value"}


def test_it_refuses_a_value_that_is_not_a_number_but_takes_null_for_nan():
    for value in ["0.5", True, [1], {"v": 1}, 10**400]:
        assert codes({"key": "kl", "step": 0, "value": value}) == {"value": "invalid"}, value
    checked = check_batch([{"key": "kl", "step": 0, "value": None}], now=NOW)
    assert checked.points[0].value is None
    checked = check_batch([{"key": "kl", "step": 0, "value": float("inf")}], now=NOW)
    assert checked.points[0].value is None


def test_it_refuses_missing_and_unknown_fields_by_name():
    assert codes({"key": "kl", "timestamp": 3}) == {
        "timestamp": "unknown_field",
        "step": "required",
        "value": "required",
    }
    assert codes(["kl", 0, 1.0]) == {None: "invalid"}
    assert codes({"key": "kl", "step": 0, "value": 1.0, "tokens": -1}) == {"tokens": "invalid"}
    assert codes({"key": "kl", "step": 0, "value": 1.0, "wall_time": "now"}) == {
        "wall_time": "invalid"
    }


def test_it_refuses_a_second_point_of_the_same_key_and_step_naming_the_first():
    batch = [
        {"key": "kl", "step": 1, "value": 1.0},
        {"key": "kl", "step": 2, "value": 2.0},
        {"key": "kl", "step": 1, "value": 3.0},
    ]
    checked = check_batch(batch, now=NOW)
    assert [p.value for p in checked.points] == [1.0, 2.0]
    assert list(checked.refused) == [2]
    assert checked.refused[2][0].code == "duplicate" and "Item 0" in checked.refused[2][0].message


def test_it_gives_every_item_a_verdict():
    batch = [{"key": "kl", "step": 0, "value": 1.0}, {"key": "kl", "step": -1, "value": 1.0}, 5]
    checked = check_batch(batch, now=NOW)
    assert len(checked.points) + len(checked.refused) == len(batch)
