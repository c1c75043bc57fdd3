import pytest

from tasks_app.families import arithmetic
from tasks_app.families.base import RowError
from tasks_app.pools.grading import FieldGrading, level_for_pass_rate, measure_difficulty


def test_it_grades_labels_numbers_and_bins() -> None:
    grading = FieldGrading()
    assert [grading.level(v) for v in ("Easy", "medium", " HARD ", 4, "2")] == [1, 2, 3, 4, 2]
    binned = FieldGrading(bins=[0.3, 0.6])
    assert [binned.level(v) for v in (0.1, 0.3, 0.5, 0.9)] == [1, 1, 2, 3]


def test_it_names_the_field_for_unknown_labels() -> None:
    with pytest.raises(RowError) as exc:
        FieldGrading().level("impossible")
    assert exc.value.field == "difficulty"
    with pytest.raises(RowError):
        FieldGrading().level(1.5)


def test_it_maps_pass_rates_to_levels() -> None:
    assert [level_for_pass_rate(r) for r in (1.0, 0.81, 0.5, 0.0)] == [1, 1, 3, 5]


def test_it_measures_difficulty_with_an_injected_pass_rate() -> None:
    tasks = arithmetic.generate(4, difficulty=1, seed=0)
    rates = iter([1.0, 0.5, 0.25, 0.0])
    done: list[int] = []
    graded = measure_difficulty(tasks, lambda task, k: next(rates), k=8, progress=done.append)
    assert [g.level for g in graded] == [1, 3, 4, 5]
    assert graded[1].task.difficulty == 3 and graded[1].task.meta["pass_rate_k"] == 8
    assert done == [1, 2, 3, 4]
