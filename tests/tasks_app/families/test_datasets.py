"""HumanEval and GSM8K import with every reference answer accepted."""

from collections import Counter

import pytest

from tasks_app.datasets import GSM8K_PATH as GSM8K
from tasks_app.datasets import HUMANEVAL_PATH as HUMANEVAL
from tasks_app.families import math_word, python_function
from tasks_app.families.base import RowError
from tasks_app.verifiers import judge


def test_it_imports_all_164_humaneval_problems_with_tests() -> None:
    tasks = python_function.import_humaneval(HUMANEVAL)
    assert len(tasks) == 164
    assert len({t.content_hash() for t in tasks}) == 164
    first = tasks[0]
    assert first.source_id == "HumanEval/0" and first.expected["entry_point"]
    assert "def check(candidate)" in first.expected["tests"]
    assert first.expected["prelude"] in first.prompt


def test_it_gives_humaneval_references_as_one_python_block() -> None:
    for task in python_function.import_humaneval(HUMANEVAL):
        code = python_function.extract_answer(python_function.reference_response(task))
        compile(code, task.source_id, "exec")
        assert f"def {task.expected['entry_point']}" in code


def test_it_extracts_every_gsm8k_reference_answer() -> None:
    tasks = math_word.import_gsm8k(GSM8K)
    assert len(tasks) == 1319
    for task in tasks:
        response = math_word.reference_response(task)
        assert math_word.extract_answer(response) == task.expected["answer"]


def test_it_names_the_field_of_a_bad_math_row() -> None:
    with pytest.raises(RowError) as exc:
        math_word.from_record({"prompt": "How many?", "answer": "no number"})
    assert exc.value.field == "answer"
    with pytest.raises(RowError) as exc:
        math_word.from_record({"answer": "#### 3"})
    assert exc.value.field == "prompt"
    assert math_word.from_record({"prompt": "q", "answer": "1,234"}).expected["answer"] == 1234


def test_it_has_every_gsm8k_reference_accepted_by_the_default_verifier() -> None:
    spec = math_word.default_verifier()
    for task in math_word.import_gsm8k(GSM8K):
        verdict = judge(spec, math_word.reference_response(task), task.expected)
        assert verdict.passed, (task.source_id, verdict.to_dict())
    wrong = judge(spec, "#### 123456789", math_word.import_gsm8k(GSM8K)[0].expected)
    assert not wrong.passed


@pytest.mark.slow
def test_it_has_every_humaneval_canonical_solution_accepted_by_the_default_verifier() -> None:
    spec = python_function.default_verifier()
    failures = []
    for task in python_function.import_humaneval(HUMANEVAL):
        verdict = judge(spec, python_function.reference_response(task), task.expected)
        if not verdict.passed:
            failures.append((task.source_id, verdict.to_dict()["error_type"]))
    assert not failures


def test_it_ships_the_datasets_with_their_licences_inside_the_project() -> None:
    from django.conf import settings

    root = settings.BASE_DIR
    for path in (HUMANEVAL, GSM8K):
        assert path.is_relative_to(root / "tasks_app"), path
        assert path.stat().st_size > 10_000
        assert "MIT License" in (path.parent / "LICENSE").read_text()
    assert settings.BUNDLED_DATASETS_DIR == root / "tasks_app" / "datasets"


def test_it_grades_gsm8k_by_the_steps_of_its_worked_solutions() -> None:
    tasks = math_word.import_gsm8k(GSM8K)
    counts = Counter(t.difficulty for t in tasks)
    assert sorted(counts) == [1, 2, 3, 4, 5] and min(counts.values()) > 100
    assert {t.meta["difficulty_source"] for t in tasks} == {"proxy:solution_steps"}
    two_steps = math_word.from_record({"prompt": "q", "answer": "a\nb\n#### 3"})
    seven_steps = math_word.from_record({"prompt": "q", "answer": "x\n" * 7 + "#### 3"})
    assert (two_steps.difficulty, seven_steps.difficulty) == (1, 5)


def test_it_grades_humaneval_by_the_size_of_its_solutions_and_tests() -> None:
    tasks = python_function.import_humaneval(HUMANEVAL)
    counts = Counter(t.difficulty for t in tasks)
    assert sorted(counts) == [1, 2, 3, 4, 5] and min(counts.values()) > 20
    assert {t.meta["difficulty_source"] for t in tasks} == {"proxy:solution_and_test_size"}


def test_it_keeps_a_rows_own_difficulty_over_the_proxy() -> None:
    task = math_word.from_record({"prompt": "q", "answer": "x\n" * 7 + "#### 3", "difficulty": 2})
    assert task.difficulty == 2 and task.meta["difficulty_source"] == "field"
