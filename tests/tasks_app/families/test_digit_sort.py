"""The digit-sort kind speaks the built-in tiny model's format, and judges as its reward does."""

import pytest

from tasks_app.families import digit_sort
from tasks_app.families.base import RowError
from tasks_app.families.common import ParamsInvalid
from tasks_app.families.registry import load_kind
from tasks_app.verifiers import judge
from training import digits


def test_it_is_registered_as_a_procedural_kind() -> None:
    module = load_kind("digit-sort")
    assert module is digit_sort and module.procedural
    assert module.difficulty_levels == [2, 3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize("text", ["31", "3141", "99012", "00000000"])
def test_it_writes_the_same_prompt_and_answer_as_the_tiny_models_warm_start(text: str) -> None:
    task = digit_sort.make_task(text)
    item = digits.make_item(text, "".join(sorted(text)))
    assert task.prompt == item.prompt
    assert digit_sort.reference_response(task) == item.answer
    assert task.difficulty == item.difficulty


def test_it_generates_as_many_digits_as_the_level_seeded() -> None:
    for level in digit_sort.difficulty_levels:
        tasks = digit_sort.generate(20, difficulty=level, seed=3)
        assert tasks == digit_sort.generate(20, difficulty=level, seed=3)
        for task in tasks:
            shown = task.prompt.removeprefix("sort ").removesuffix("=")
            assert len(shown) == level == task.difficulty and shown.isdigit()
            assert task.expected == {"answer": "".join(sorted(shown))}
    first, other = (digit_sort.generate(5, difficulty=4, seed=s) for s in (1, 2))
    assert first != other


def test_it_rejects_levels_outside_two_to_eight_and_unknown_params() -> None:
    for level in (1, 9):
        with pytest.raises(ParamsInvalid) as exc:
            digit_sort.generate(1, difficulty=level, seed=0)
        assert "difficulty" in exc.value.errors
    with pytest.raises(ParamsInvalid):
        digit_sort.generate(1, difficulty=2, seed=0, params={"bogus": 1})


@pytest.mark.parametrize(
    "completion",
    ["1134", " 1134\n", "134", "1143", "11345", '"1134"', "11 34", "1134\n1134", "", "sort"],
)
def test_it_judges_a_completion_as_the_tiny_models_reward_does(completion: str) -> None:
    task = digit_sort.make_task("3141")
    item = digits.make_item("3141")
    [expected] = digits.reward_fn([item], [completion])
    verdict = judge(digit_sort.default_verifier(), completion, task.expected)
    assert verdict.passed == expected.passed, verdict.to_dict()


def test_it_imports_rows_of_digits_and_names_the_field_of_a_bad_one() -> None:
    task = digit_sort.from_record({"digits": "5150", "source_id": "r1"})
    assert (task.prompt, task.expected["answer"], task.difficulty) == ("sort 5150=", "0155", 4)
    for bad in ({}, {"digits": "12a"}, {"digits": "1"}, {"digits": "123456789"}, {"digits": "١٢"}):
        with pytest.raises(RowError) as exc:
            digit_sort.from_record(bad)
        assert exc.value.field == "digits"


def test_it_extracts_the_stripped_completion() -> None:
    assert digit_sort.extract_answer(" 0123\n") == "0123"
    assert digit_sort.extract_answer("  ") is None
