"""Every kind: seeded generation, reference responses that extract to the expected answer,
reference responses accepted (and wrong ones rejected) by the default verifier."""

import json
import sqlite3
from pathlib import Path

import jsonschema
import pytest

from tasks_app.families import arithmetic, json_schema, sql_query, string_ops
from tasks_app.families.base import RowError
from tasks_app.families.common import ParamsInvalid
from tasks_app.families.registry import load_kind
from tasks_app.verifiers import judge

PROCEDURAL = ["arithmetic", "string-ops", "json-schema", "sql-query"]


@pytest.mark.parametrize("kind", PROCEDURAL)
def test_it_generates_the_same_tasks_for_the_same_seed(kind: str) -> None:
    module = load_kind(kind)
    for level in module.difficulty_levels:
        first = module.generate(5, difficulty=level, seed=7)
        assert first == module.generate(5, difficulty=level, seed=7)
        assert all(t.difficulty == level and t.family == kind for t in first)
    assert module.generate(5, difficulty=1, seed=7) != module.generate(5, difficulty=1, seed=8)


@pytest.mark.parametrize("kind", PROCEDURAL)
def test_it_rejects_unknown_levels_and_bad_params(kind: str) -> None:
    module = load_kind(kind)
    with pytest.raises(ParamsInvalid) as exc:
        module.generate(1, difficulty=99, seed=0)
    assert "difficulty" in exc.value.errors
    with pytest.raises(ParamsInvalid):
        module.generate(1, difficulty=1, seed=0, params={"bogus": 1})


def test_it_scales_arithmetic_operands_with_difficulty() -> None:
    task = arithmetic.generate(1, difficulty=4, seed=1, params={"ops": ["+"]})[0]
    a, _, b = task.prompt.split(".")[0].removeprefix("Compute ").split()
    assert len(a) == len(b) == 4 and task.expected["answer"] == str(int(a) + int(b))


def test_it_sorts_digits_for_the_cpu_demo() -> None:
    for task in string_ops.generate(20, difficulty=3, seed=2, params={"ops": ["sort"]}):
        digits = task.prompt.split("digits ")[1].split()[0]
        assert len(digits) == string_ops.LENGTHS[3]
        assert task.expected["answer"] == "".join(sorted(digits))


@pytest.mark.parametrize("kind", ["arithmetic", "string-ops"])
def test_it_extracts_the_reference_answer(kind: str) -> None:
    module = load_kind(kind)
    for task in module.generate(10, difficulty=2, seed=3):
        assert module.extract_answer(module.reference_response(task)) == task.expected["answer"]
        assert module.extract_answer("no marker here") is None


def test_it_makes_json_facts_that_satisfy_their_schema() -> None:
    for level in json_schema.difficulty_levels:
        for task in json_schema.generate(5, difficulty=level, seed=4):
            answer = json_schema.extract_answer(json_schema.reference_response(task))
            jsonschema.validate(answer, task.expected["schema"])
            assert json_schema.flatten(answer) == task.expected["facts"]


def test_it_records_the_rows_of_the_reference_query() -> None:
    for level in sql_query.difficulty_levels:
        for task in sql_query.generate(3, difficulty=level, seed=5):
            exp = task.expected
            query = sql_query.extract_answer(sql_query.reference_response(task))
            assert sql_query.run_query(exp["schema_sql"], query) == exp["expected_rows"]
            assert exp["expected_rows"], "a question with no rows teaches nothing"


def test_it_imports_a_sql_row_and_rejects_one_that_does_not_run() -> None:
    schema = "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);"
    record = {"schema_sql": schema, "prompt": "All x.", "reference_sql": "SELECT x FROM t"}
    assert sql_query.from_record(record).expected["expected_rows"] == [[1], [2]]
    with pytest.raises(RowError) as exc:
        sql_query.from_record({**record, "reference_sql": "SELECT y FROM t"})
    assert exc.value.field == "reference_sql"
    with pytest.raises(sqlite3.Error):
        sql_query.run_query(schema, "SELEC")


def test_it_refuses_an_imported_sql_row_whose_schema_reaches_for_files(tmp_path: Path) -> None:
    target = tmp_path / "copy.sqlite3"
    record = {
        "schema_sql": f"VACUUM INTO '{target}'; CREATE TABLE t (x);",
        "prompt": "All x.",
        "reference_sql": "SELECT x FROM t",
    }
    with pytest.raises(RowError) as exc:
        sql_query.from_record(record)
    assert exc.value.field == "schema_sql" and not target.exists()


def test_it_refuses_an_imported_json_schema_past_the_size_limits() -> None:
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10_000)}}
    with pytest.raises(RowError) as exc:
        json_schema.from_record({"schema": huge, "facts": {"p1": "x"}})
    assert exc.value.field == "schema" and "more than 5,000 values" in str(exc.value)
    slow = {"properties": {"a": {"pattern": "(?:(?:a{1000}){1000}){10}"}}}
    with pytest.raises(RowError, match="repeats too much"):
        json_schema.from_record({"schema": slow, "facts": {"a": "x"}})


def test_it_imports_json_schema_rows_given_as_text() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    task = json_schema.from_record({"schema": json.dumps(schema), "facts": '{"a": 1}'})
    assert task.expected == {"schema": schema, "facts": {"a": 1}}
    with pytest.raises(RowError) as exc:
        json_schema.from_record({"schema": "{not json", "facts": {"a": 1}})
    assert exc.value.field == "schema"


@pytest.mark.parametrize(
    "kind", ["arithmetic", "string-ops", "json-schema", "sql-query", "digit-sort"]
)
def test_it_has_reference_responses_the_default_verifier_accepts(kind: str) -> None:
    module = load_kind(kind)
    spec = module.default_verifier()
    for level in module.difficulty_levels:
        for task in module.generate(3, difficulty=level, seed=6):
            verdict = judge(spec, module.reference_response(task), task.expected)
            assert verdict.passed, (task.prompt, verdict.to_dict())


@pytest.mark.parametrize(
    "kind", ["arithmetic", "string-ops", "json-schema", "sql-query", "digit-sort"]
)
def test_it_has_wrong_responses_the_default_verifier_rejects(kind: str) -> None:
    module = load_kind(kind)
    spec = module.default_verifier()
    wrong = {
        "arithmetic": "Answer: -1.5",
        "string-ops": "Answer: x",
        "json-schema": '```json\n{"unexpected": true}\n```',
        "sql-query": "```sql\nSELECT 12345\n```",
        "digit-sort": "Answer: 01",
    }[kind]
    for task in module.generate(3, difficulty=2, seed=6):
        assert not judge(spec, wrong, task.expected).passed
