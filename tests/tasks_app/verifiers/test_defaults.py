"""Each family kind's default verifier (its module's ``default_verifier()``, found through the
kind registry) accepts a reference response and rejects wrong ones."""

import gzip
import json

import pytest

from tasks_app.datasets import HUMANEVAL_PATH
from tasks_app.families.registry import BUILTIN_KINDS, load_kind
from tasks_app.verifiers.base import ErrorType
from tasks_app.verifiers.runner import judge
from tasks_app.verifiers.spec import validate_spec

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


def default_spec(kind: str) -> dict:
    return load_kind(kind).default_verifier()


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
    assert {*CASES, "python-function"} <= set(BUILTIN_KINDS)
    for kind in BUILTIN_KINDS:
        assert validate_spec(default_spec(kind)) == [], kind


def test_it_hands_out_a_fresh_default_each_time() -> None:
    spec = default_spec("python-function")
    spec["layers"][1]["params"]["imports"].append("math")
    assert "math" not in default_spec("python-function")["layers"][1]["params"]["imports"]
    assert default_spec("arithmetic") is not default_spec("arithmetic")


def test_it_has_no_second_registry_of_defaults_in_the_verifier_package() -> None:
    import tasks_app.verifiers as verifiers

    assert not hasattr(verifiers, "default_spec")
    with pytest.raises(ImportError):
        __import__("tasks_app.verifiers.defaults")


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


def test_it_checks_python_imports_in_the_code_not_in_the_prose_around_it() -> None:
    layer = default_spec("python-function")["layers"][1]
    assert (layer["kind"], layer["params"]["scope"]) == ("forbidden", "answer")
    reply = "import os is not needed here:\n```python\ndef f():\n    return 1\n```"
    verdict = judge({**default_spec("python-function"), "layers": [layer]}, reply, {})
    assert verdict.passed, verdict.to_dict()
    whole = {**layer, "params": {**layer["params"], "scope": "response"}}
    assert not judge({**default_spec("python-function"), "layers": [whole]}, reply, {}).passed


def _humaneval(index: int) -> dict:
    path = HUMANEVAL_PATH
    with gzip.open(path, "rt") as lines:
        return [json.loads(line) for _, line in zip(range(index + 1), lines, strict=False)][index]


def test_it_accepts_a_humaneval_reference_and_rejects_a_wrong_body() -> None:
    item = _humaneval(2)  # truncate_number
    expected = {"entry_point": item["entry_point"], "tests": item["test"]}
    good = f"```python\n{item['prompt']}{item['canonical_solution']}```"
    wrong = f"```python\n{item['prompt']}    return number\n```"
    assert judge(default_spec("python-function"), good, expected).passed
    verdict = judge(default_spec("python-function"), wrong, expected)
    assert verdict.error_type is ErrorType.WRONG_ANSWER and verdict.reward < 0.7
