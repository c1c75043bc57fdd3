"""Each family kind's default verifier accepts a reference response and rejects wrong ones."""

import gzip
import json

import pytest

from tasks_app.verifiers.base import ErrorType
from tasks_app.verifiers.defaults import DEFAULT_SPECS, default_spec
from tasks_app.verifiers.runner import judge
from tasks_app.verifiers.spec import validate_spec
from tests.conftest import HUMANEVAL_PATH

SQL_TASK = {
    "schema_sql": "CREATE TABLE orders (id INTEGER, customer TEXT, total REAL);"
    "INSERT INTO orders VALUES (1, 'ann', 10.5), (2, 'bob', 3.0), (3, 'ann', 4.5);",
    "reference_sql": "SELECT customer, SUM(total) FROM orders GROUP BY customer",
}
JSON_TASK = {
    "schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
        "required": ["city", "population"],
    },
    "facts": {"city": "Lyon", "population": 522969},
}
# kind -> (expected, reference response, [(wrong response, error type)])
CASES = {
    "arithmetic": (
        {"answer": "42"},
        "6 * 7 = 42\nAnswer: 42",
        [("Answer: 41", ErrorType.WRONG_ANSWER), ("I am not sure.", ErrorType.FORMAT_ERROR)],
    ),
    "math-word": (
        {"answer": "1234.5"},
        "She earns $1,200 plus $34.50.\n#### $1,234.50",
        [("#### 1,243.5", ErrorType.WRONG_ANSWER)],
    ),
    "string-ops": (
        {"answer": "olleH"},
        "Reversing gives:\nAnswer: olleH",
        [("Answer: olleh", ErrorType.WRONG_ANSWER), ("", ErrorType.FORMAT_ERROR)],
    ),
    "json-schema": (
        JSON_TASK,
        'Here it is:\n```json\n{"city": "Lyon", "population": 522969}\n```',
        [
            ('```json\n{"city": "Lyon", "population": "522969"}\n```', ErrorType.SCHEMA_ERROR),
            ('```json\n{"city": "Lyon", "population": 1}\n```', ErrorType.WRONG_ANSWER),
            ('```json\n{"city": "Lyon",}\n```', ErrorType.PARSE_ERROR),
        ],
    ),
    "sql-query": (
        SQL_TASK,
        "```sql\nSELECT customer, SUM(total) AS spent FROM orders GROUP BY 1 ORDER BY 2;\n```",
        [
            ("```sql\nSELECT customer, total FROM orders\n```", ErrorType.WRONG_ANSWER),
            ("```sql\nDELETE FROM orders\n```", ErrorType.FORBIDDEN),
            ("```sql\nSELECT customer FROM orders GROUP\n```", ErrorType.PARSE_ERROR),
        ],
    ),
}


def test_it_has_a_valid_default_for_every_family_kind() -> None:
    assert set(DEFAULT_SPECS) == {*CASES, "python-function"}
    for kind in DEFAULT_SPECS:
        assert validate_spec(default_spec(kind)) == [], kind
    assert default_spec("arithmetic") is not default_spec("arithmetic")


@pytest.mark.parametrize("kind", sorted(CASES))
def test_it_accepts_the_reference_and_rejects_wrong_answers(kind: str) -> None:
    expected, reference, wrongs = CASES[kind]
    verdict = judge(default_spec(kind), reference, expected)
    assert verdict.passed and verdict.reward == pytest.approx(1.0), verdict.to_dict()
    for response, error_type in wrongs:
        verdict = judge(default_spec(kind), response, expected)
        assert (verdict.passed, verdict.error_type) == (False, error_type), response
        assert verdict.reward < 1.0


def test_it_forbids_unsafe_imports_in_python_before_running_anything() -> None:
    code = "```python\nimport subprocess\ndef f():\n    return 1\n```"
    verdict = judge(default_spec("python-function"), code, {"entry_point": "f", "tests": "x"})
    assert verdict.error_type is ErrorType.FORBIDDEN
    assert [r.skipped for r in verdict.layers[-2:]] == [True, True]


def _humaneval(index: int) -> dict:
    path = HUMANEVAL_PATH
    with gzip.open(path, "rt") as lines:
        return [json.loads(line) for _, line in zip(range(index + 1), lines, strict=False)][index]


def test_it_accepts_a_humaneval_reference_and_rejects_a_wrong_body() -> None:
    sandbox = pytest.importorskip("tasks_app.sandbox")
    if not hasattr(sandbox, "check_function"):
        pytest.skip("the sandbox has no check_function yet")
    item = _humaneval(2)  # truncate_number
    expected = {"entry_point": item["entry_point"], "tests": item["test"]}
    good = f"```python\n{item['prompt']}{item['canonical_solution']}```"
    wrong = f"```python\n{item['prompt']}    return number\n```"
    assert judge(default_spec("python-function"), good, expected).passed
    verdict = judge(default_spec("python-function"), wrong, expected)
    assert verdict.error_type is ErrorType.WRONG_ANSWER and verdict.reward < 0.7
