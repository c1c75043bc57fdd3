import json
import random
import statistics

import pytest

from tasks_app.curriculum import (
    ConfigError,
    Curriculum,
    CurriculumConfig,
    FamilyCurriculum,
    PinnedFamily,
    SyntheticLearner,
    TaskPicker,
    shift,
    simulate,
    with_floor,
)

CONFIG = CurriculumConfig(
    families=[
        FamilyCurriculum("arithmetic", [1, 2, 3, 4, 5, 6]),
        FamilyCurriculum("string-ops", [1, 2, 3, 4, 5], weight=2.0),
    ]
)


def _learner() -> SyntheticLearner:
    return SyntheticLearner(abilities={"arithmetic": 1.5, "string-ops": 1.5})


def test_it_keeps_the_simulated_success_rate_in_band() -> None:
    trace = simulate(CONFIG, _learner(), steps=300, batch=32, seed=3)
    for family in ("arithmetic", "string-ops"):
        rolling = [s["rolling_success"][family] for s in trace["steps"][30:]]
        rolling = [r for r in rolling if r is not None]
        assert sum(0.3 <= r <= 0.7 for r in rolling) / len(rolling) > 0.9
        batch = [s["success_rate"][family] for s in trace["steps"][30:]]
        assert 0.3 <= statistics.mean(r for r in batch if r is not None) <= 0.7
    first, last = trace["steps"][0]["distribution"], trace["steps"][-1]["distribution"]
    assert last["string-ops"][-1] > first["string-ops"][-1], "mass moved to harder levels"


def test_it_never_lets_a_level_fall_below_the_floor() -> None:
    trace = simulate(CONFIG, _learner(), steps=200, batch=32, seed=4)
    for step in trace["steps"]:
        for probs in step["distribution"].values():
            assert min(probs) >= CONFIG.floor - 1e-9 and sum(probs) == pytest.approx(1.0, abs=1e-5)


def test_it_resumes_from_its_state_exactly() -> None:
    whole = simulate(CONFIG, _learner(), steps=120, batch=16, seed=5)
    learner = _learner()
    first = simulate(CONFIG, learner, steps=60, batch=16, seed=5)
    state = json.loads(json.dumps(first["state"]))  # it must survive a JSON round trip
    rest = simulate(CONFIG, learner, steps=60, batch=16, seed=5, state=state)
    assert first["steps"] + rest["steps"] == whole["steps"]


def test_it_round_trips_its_state_dict() -> None:
    curriculum = Curriculum(CONFIG)
    curriculum.observe_many([("arithmetic", 1, True)] * 64)
    restored = Curriculum.from_state_dict(json.loads(json.dumps(curriculum.state_dict())))
    assert restored.distributions == curriculum.distributions
    assert restored.adjustments == curriculum.adjustments == {"arithmetic": 1, "string-ops": 0}


def test_it_samples_families_by_mixture_weight() -> None:
    pairs = Curriculum(CONFIG).sample(3000, random.Random(0))
    share = sum(f == "string-ops" for f, _ in pairs) / len(pairs)
    assert 0.62 < share < 0.72


def test_it_keeps_a_static_curriculum_fixed() -> None:
    static = CurriculumConfig(families=CONFIG.families, dynamic=False)
    curriculum = Curriculum(static)
    before = dict(curriculum.distributions)
    curriculum.observe_many([("arithmetic", 1, True)] * 200)
    assert curriculum.distributions == before


def test_it_validates_the_config_with_reasons() -> None:
    with pytest.raises(ValueError, match="band"):
        CurriculumConfig(families=CONFIG.families, band=(0.8, 0.2))
    with pytest.raises(ValueError, match="floor"):
        CurriculumConfig(families=[FamilyCurriculum("x", list(range(1, 31)))], floor=0.05)


def test_it_names_the_field_of_each_config_problem() -> None:
    families = [
        FamilyCurriculum("a", [1, 2, 3], initial=[0.5, 0.5]),
        FamilyCurriculum("b", list(range(1, 31)), weight=-1.0),
    ]
    with pytest.raises(ConfigError) as raised:
        CurriculumConfig(families=families, band=(0.8, 0.2), floor=0.05)
    assert {path for path, _ in raised.value.errors} == {
        "band",
        "families[0].initial",
        "families[1].weight",
        "floor",
    }


def test_it_takes_a_pinned_familys_levels_from_its_version_unless_chosen() -> None:
    assert PinnedFamily(7).named("digits", [1, 2, 4]) == FamilyCurriculum("digits", [1, 2, 4])
    chosen = PinnedFamily(7, weight=2.0, levels=[2, 4], initial=[0.9, 0.1])
    assert chosen.named("digits", [1, 2, 4]) == FamilyCurriculum(
        "digits", [2, 4], weight=2.0, initial=[0.9, 0.1]
    )


def test_it_shifts_mass_and_applies_the_floor_idempotently() -> None:
    assert shift([1.0, 0.0, 0.0], 0.5, harder=True) == [0.5, 0.5, 0.0]
    floored = with_floor([1.0, 0.0, 0.0], 0.1)
    assert floored == pytest.approx([0.8, 0.1, 0.1])
    assert with_floor(floored, 0.1) == pytest.approx(floored)


def test_it_picks_only_train_tasks_and_falls_back_to_the_nearest_level() -> None:
    entries = [("a", 1, "train", "t1"), ("a", 3, "held_out", "h3"), ("a", 4, "train", "t4")]
    picker = TaskPicker(entries)
    rng = random.Random(0)
    assert picker.pick("a", 3, rng) == "t4" and picker.pick("a", 2, rng) == "t1"
    picks = picker.batch([("a", lv) for lv in range(1, 6)] * 20, rng)
    assert "h3" not in picks
    with pytest.raises(LookupError):
        picker.pick("b", 1, rng)


def test_it_shows_a_rolling_rate_that_does_not_collapse_when_the_policy_resets() -> None:
    # A learner far above the easiest levels: the policy adjusts each time its window fills,
    # while every batch succeeds about 90% of the time. The rolling rate must stay near that.
    config = CurriculumConfig(families=[FamilyCurriculum("arith", [1, 2, 3, 4, 5, 6])], window=64)
    learner = SyntheticLearner(abilities={"arith": 9.0}, learning_rate=0.0)
    trace = simulate(config, learner, steps=300, batch=48, seed=11)
    steps = trace["steps"][2:]
    assert trace["state"]["adjustments"]["arith"] >= 3  # the policy reset its window often
    assert min(s["success_rate"]["arith"] for s in steps) > 0.6
    assert min(s["rolling_success"]["arith"] for s in steps) > 0.6


def test_it_adjusts_only_on_outcomes_drawn_after_its_last_adjustment() -> None:
    config = CurriculumConfig(families=[FamilyCurriculum("arith", [1, 2, 3])], window=4)
    curriculum = Curriculum(config)
    curriculum.observe_many([("arith", 1, True)] * 4)  # 100% > band: one move harder
    assert curriculum.adjustments["arith"] == 1
    curriculum.observe_many([("arith", 2, True)] * 3)  # a fresh window is not full yet
    assert curriculum.adjustments["arith"] == 1
    assert curriculum.success_rate("arith") == 1.0  # the shown rate spans the last 4
    curriculum.observe("arith", 2, True)
    assert curriculum.adjustments["arith"] == 2


def test_it_keeps_the_rolling_rate_exact_as_outcomes_leave_the_window_and_on_resume() -> None:
    config = CurriculumConfig(families=[FamilyCurriculum("arith", [1, 2])], window=5)
    curriculum = Curriculum(config)
    rng = random.Random(3)
    outcomes = [rng.random() < 0.4 for _ in range(203)]
    for n, ok in enumerate(outcomes, start=1):
        curriculum.observe("arith", 1, ok)
        last = outcomes[max(0, n - 5) : n]
        assert curriculum.success_rate("arith") == sum(last) / len(last)
    resumed = Curriculum.from_state_dict(json.loads(json.dumps(curriculum.state_dict())))
    assert resumed.success_rate("arith") == curriculum.success_rate("arith")
    resumed.observe("arith", 1, True)
    assert resumed.success_rate("arith") == (sum(outcomes[-4:]) + 1) / 5
