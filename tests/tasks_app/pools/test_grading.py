import pytest

from tasks_app.families import arithmetic
from tasks_app.families.base import RowError
from tasks_app.pools.grading import (
    FieldGrading,
    level_for_pass_rate,
    measure_difficulty,
    text_labels,
)


def test_it_grades_mapped_labels_numbers_and_bins() -> None:
    grading = FieldGrading(labels={"Easy": 1, "medium": 3, "hard": 5})
    assert [grading.level(v) for v in ("easy", "MEDIUM", " HARD ", 4, "2")] == [1, 3, 5, 4, 2]
    binned = FieldGrading(bins=[0.3, 0.6])
    assert [binned.level(v) for v in (0.1, 0.3, 0.5, 0.9)] == [1, 1, 2, 3]


def test_it_refuses_a_label_without_a_level_naming_the_value_and_field() -> None:
    with pytest.raises(RowError) as exc:
        FieldGrading().level("hard")
    assert exc.value.field == "difficulty"
    assert "'hard'" in exc.value.reason and "difficulty_labels" in exc.value.reason
    with pytest.raises(RowError) as exc:
        FieldGrading(labels={"easy": 1}).level("impossible")
    assert "'impossible'" in exc.value.reason and "easy" in exc.value.reason
    with pytest.raises(RowError):
        FieldGrading().level(1.5)


def test_it_lists_the_text_labels_of_a_column() -> None:
    assert text_labels(["hard", "2", 3, " easy ", "hard", "", None, "1.5"]) == ["hard", "easy"]


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
