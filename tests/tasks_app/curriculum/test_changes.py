"""Changing a running curriculum: distributions, mixture weights and band, checked and kept."""

import json
import random

import pytest

from tasks_app.curriculum import (
    ConfigError,
    Curriculum,
    CurriculumConfig,
    FamilyCurriculum,
    change_problems,
)

CONFIG = CurriculumConfig(
    families=[
        FamilyCurriculum("arithmetic", [1, 2, 3]),
        FamilyCurriculum("strings", [1, 2], weight=2.0),
    ],
    floor=0.05,
    window=4,
)


def test_it_moves_the_sampled_levels_at_once() -> None:
    curriculum = Curriculum(CONFIG)
    curriculum.apply({"families": {"arithmetic": {"distribution": [0, 0, 1]}}})
    assert curriculum.distribution("arithmetic") == pytest.approx({1: 0.05, 2: 0.05, 3: 0.9})
    drawn = [
        level for fam, level in curriculum.sample(400, random.Random(0)) if fam == "arithmetic"
    ]
    assert drawn.count(3) / len(drawn) > 0.8


def test_it_changes_mixture_weights_and_band() -> None:
    curriculum = Curriculum(CONFIG)
    curriculum.apply({"band": [0.5, 0.9], "families": {"strings": {"weight": 0}}})
    assert curriculum.config.band == (0.5, 0.9)
    assert {fam for fam, _ in curriculum.sample(200, random.Random(1))} == {"arithmetic"}


def test_it_waits_for_fresh_outcomes_before_adjusting_a_set_distribution() -> None:
    curriculum = Curriculum(CONFIG)
    curriculum.observe_many([("arithmetic", 1, True)] * 3)
    curriculum.apply({"families": {"arithmetic": {"distribution": [1, 0, 0]}}})
    curriculum.observe("arithmetic", 1, True)  # would fill the old window of 4
    assert curriculum.adjustments["arithmetic"] == 0


def test_it_keeps_a_change_through_its_state() -> None:
    curriculum = Curriculum(CONFIG)
    curriculum.apply(
        {"band": [0.2, 0.4], "families": {"strings": {"weight": 5, "distribution": [0, 1]}}}
    )
    state = json.loads(json.dumps(curriculum.state_dict()))
    resumed = Curriculum(CONFIG)  # built from the run's original config
    resumed.load_state_dict(state)
    assert resumed.config.band == (0.2, 0.4)
    assert [fam.weight for fam in resumed.config.families] == [1.0, 5.0]
    assert resumed.distribution("strings") == pytest.approx({1: 0.05, 2: 0.95})


@pytest.mark.parametrize(
    ("change", "problems"),
    [
        ({}, [("", "change at least one of band, families")]),
        ({"band": [0.7, 0.3]}, [("band", "must be [low, high] with 0 <= low < high <= 1")]),
        ({"speed": 2, "band": [0.1, 0.2]}, [("speed", "unknown field")]),
        (
            {"families": {"poetry": {"weight": 1}}},
            [
                (
                    "families.poetry",
                    "not a family of this curriculum; one of ['arithmetic', 'strings']",
                )
            ],
        ),
        (
            {"families": {"arithmetic": {"distribution": [1, 0]}}},
            [
                (
                    "families.arithmetic.distribution",
                    "must give a non-negative share for each of the levels [1, 2, 3], not all zero",
                )
            ],
        ),
        (
            {"families": {"strings": {"weight": -1}}},
            [("families.strings.weight", "must be a number from 0 to 1e+06")],
        ),
        (
            {"families": {"strings": {"weight": 0}, "arithmetic": {"weight": 0}}},
            [("families", "at least one family needs a positive weight")],
        ),
        (
            {"families": {"strings": {}}},
            [("families.strings", "must change one of weight, distribution")],
        ),
    ],
)
def test_it_names_the_field_and_reason_of_a_bad_change(change, problems) -> None:
    assert change_problems(CONFIG, change) == problems


def test_it_changes_nothing_when_a_change_is_refused() -> None:
    curriculum = Curriculum(CONFIG)
    before = curriculum.state_dict()
    with pytest.raises(ConfigError) as refused:
        curriculum.apply({"band": [0.1, 0.5], "families": {"strings": {"weight": "many"}}})
    assert refused.value.errors == [("families.strings.weight", "must be a number from 0 to 1e+06")]
    assert curriculum.state_dict() == before
