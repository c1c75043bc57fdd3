"""HumanEval and GSM8K import with every reference answer accepted."""

from pathlib import Path

import pytest

from tasks_app.families import math_word, python_function
from tasks_app.families.base import RowError

DATASETS = Path(__file__).resolve().parents[4] / "shared" / "datasets"
HUMANEVAL = DATASETS / "humaneval" / "HumanEval.jsonl.gz"
GSM8K = DATASETS / "gsm8k" / "test.jsonl"

needs_data = pytest.mark.skipif(not GSM8K.exists(), reason="shared datasets not present")


@needs_data
def test_it_imports_all_164_humaneval_problems_with_tests() -> None:
    tasks = python_function.import_humaneval(HUMANEVAL)
    assert len(tasks) == 164
    assert len({t.content_hash() for t in tasks}) == 164
    first = tasks[0]
    assert first.source_id == "HumanEval/0" and first.expected["entry_point"]
    assert "def check(candidate)" in first.expected["tests"]
    assert first.expected["prelude"] in first.prompt


@needs_data
def test_it_gives_humaneval_references_as_one_python_block() -> None:
    for task in python_function.import_humaneval(HUMANEVAL):
        code = python_function.extract_answer(python_function.reference_response(task))
        compile(code, task.source_id, "exec")
        assert f"def {task.expected['entry_point']}" in code


@needs_data
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


def _judge():
    verifiers = pytest.importorskip("tasks_app.verifiers")
    pytest.importorskip("tasks_app.verifiers.defaults")
    if not hasattr(verifiers, "judge"):
        pytest.skip("the verifier package does not expose judge yet")
    return verifiers.judge


@needs_data
def test_it_has_every_gsm8k_reference_accepted_by_the_default_verifier() -> None:
    judge = _judge()
    spec = math_word.default_verifier()
    for task in math_word.import_gsm8k(GSM8K):
        verdict = judge(spec, math_word.reference_response(task), task.expected)
        assert verdict.passed, (task.source_id, verdict.to_dict())
    wrong = judge(spec, "#### 123456789", math_word.import_gsm8k(GSM8K)[0].expected)
    assert not wrong.passed


@needs_data
@pytest.mark.slow
def test_it_has_every_humaneval_canonical_solution_accepted_by_the_default_verifier() -> None:
    judge = _judge()
    spec = python_function.default_verifier()
    failures = []
    for task in python_function.import_humaneval(HUMANEVAL):
        verdict = judge(spec, python_function.reference_response(task), task.expected)
        if not verdict.passed:
            failures.append((task.source_id, verdict.to_dict()["error_type"]))
    assert not failures
