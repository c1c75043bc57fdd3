import pytest

from tasks_app.verifiers.extractors import EXTRACTORS, describe_extractors, extract

FENCED = 'Here:\n```json\n{"a": 1}\n```\n```python\ndef f():\n    return 1\n```\n'


@pytest.mark.parametrize(
    ("name", "response", "wanted"),
    [
        ("full_text", "  hello \n", "hello"),
        ("last_number", "it costs $1,234.50 in total", "$1,234.50"),
        ("final_answer", "so...\n#### 18", "18"),
        ("final_answer", "work\nAnswer: olleh.", "olleh"),
        ("final_answer", "thus \\boxed{\\frac{1}{2}} done", "\\frac{1}{2}"),
        ("final_answer_or_last_number", "3 plus 4 is 7", "7"),
        ("final_answer_or_last_line", "thinking\nOLLEH\n", "OLLEH"),
        ("code_block", FENCED, '{"a": 1}'),
        ("python_block", FENCED, "def f():\n    return 1"),
        ("json_block", FENCED, '{"a": 1}'),
        ("python_block", "```\nx = 1\n```", "x = 1"),
        ("sql_block", "```sql\nSELECT 1;\n```", "SELECT 1;"),
        (
            "json_object",
            'Sure: {"a": "}{", "b": {"c": 1}} hope it helps',
            '{"a": "}{", "b": {"c": 1}}',
        ),
        (
            "sql_statement",
            "The query:\nSELECT name FROM t\nWHERE id = 1; easy",
            "SELECT name FROM t\nWHERE id = 1;",
        ),
    ],
)
def test_it_extracts_the_judged_part(name: str, response: str, wanted: str) -> None:
    assert extract(name, response) == wanted


@pytest.mark.parametrize(
    ("name", "response"),
    [
        ("full_text", "   "),
        ("last_number", "no digits"),
        ("final_answer", "I think it is 18"),
        ("python_block", "```sql\nSELECT 1\n```"),
        ("json_object", "no braces"),
        ("sql_statement", "I cannot write that query"),
    ],
)
def test_it_returns_none_when_the_shape_is_missing(name: str, response: str) -> None:
    assert extract(name, response) is None


def test_it_prefers_the_boxed_answer_over_an_earlier_marker() -> None:
    assert extract("final_answer", "Answer: 3\nwait, \\boxed{4}") == "4"


def test_it_describes_every_extractor() -> None:
    names = [item["name"] for item in describe_extractors()]
    assert names == list(EXTRACTORS)
    assert all(item["description"] for item in describe_extractors())
