import json
import random
import statistics

import pytest

from tasks_app.curriculum import (
    Curriculum,
    CurriculumConfig,
    FamilyCurriculum,
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
