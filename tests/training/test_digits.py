import json
from collections import Counter

import pytest

from training import digits
from training.interfaces import RewardResult


def observe(curriculum, pass_rates: dict[int, float], n: int = 40) -> None:
    """Feed `n` verdicts per length, passing the given share of them."""
    for length, rate in pass_rates.items():
        items = [digits.make_item("1" * length)] * n
        results = [RewardResult(1.0, passed=i < rate * n) for i in range(n)]
        curriculum.observe(items, results)


def test_the_curriculum_draws_mostly_the_lengths_inside_its_band():
    curriculum = digits.DigitSortCurriculum(2, 8, seed=0, band=(0.1, 0.9), floor=0.1)
    observe(curriculum, {2: 1.0, 3: 1.0, 4: 0.5, 5: 0.5, 6: 0.0, 7: 0.0, 8: 0.0})
    drawn = Counter(item.difficulty for item in curriculum.sample(2000))
    inside = drawn[4] + drawn[5]
    assert inside / 2000 == pytest.approx(2 / 2.5, abs=0.04)  # weights 1, 1 and five of 0.1
    assert all(drawn[k] > 0 for k in (2, 3, 6, 7, 8))  # the floor keeps every length seen
    items = curriculum.sample(50)
    assert all(item.answer == "".join(sorted(item.payload["digits"])) for item in items)


def test_a_length_not_yet_seen_counts_as_inside_the_band():
    curriculum = digits.DigitSortCurriculum(2, 4, seed=0)
    observe(curriculum, {2: 1.0})
    assert curriculum.weights() == [0.1, 1.0, 1.0]
    assert curriculum.pass_rate(2) == 1.0 and curriculum.pass_rate(3) is None


def test_only_the_latest_window_of_verdicts_counts():
    curriculum = digits.DigitSortCurriculum(2, 2, seed=0, window=40)
    observe(curriculum, {2: 0.0})
    observe(curriculum, {2: 1.0})
    assert curriculum.pass_rate(2) == 1.0


def test_a_resumed_curriculum_draws_what_the_original_would():
    curriculum = digits.DigitSortCurriculum(2, 8, seed=3)
    observe(curriculum, {2: 1.0, 5: 0.5, 8: 0.0})
    curriculum.sample(7)
    resumed = digits.DigitSortCurriculum(2, 8, seed=99)
    resumed.load_state_dict(json.loads(json.dumps(curriculum.state_dict())))
    assert [i.prompt for i in resumed.sample(30)] == [i.prompt for i in curriculum.sample(30)]
    assert resumed.weights() == curriculum.weights()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"band": (0.9, 0.1)}, "band"), ({"band": (0.0, 1.5)}, "band"), ({"floor": 0.0}, "floor")],
)
def test_it_refuses_a_band_or_floor_that_cannot_work(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        digits.DigitSortCurriculum(2, 8, **kwargs)
