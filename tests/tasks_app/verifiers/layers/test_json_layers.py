import json
import time

from tasks_app.verifiers.base import ErrorType

from .helpers import run_layer

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
}


def test_it_parses_json_objects_only_by_default() -> None:
    assert run_layer("json_parse", '{"a": 1}').passed
    assert run_layer("json_parse", "{'a': 1}").error_type is ErrorType.PARSE_ERROR
    assert run_layer("json_parse", "[1, 2]").error_type is ErrorType.FORMAT_ERROR
    assert run_layer("json_parse", "[1, 2]", require_object=False).passed


def test_it_checks_the_schema_from_expected() -> None:
    assert run_layer("json_schema", '{"name": "Ada", "age": 36}', {"schema": SCHEMA}).passed
    result = run_layer("json_schema", '{"name": "Ada", "age": -1}', {"schema": SCHEMA})
    assert result.error_type is ErrorType.SCHEMA_ERROR
    assert result.detail.startswith("age:")


def test_it_prefers_a_schema_given_in_params() -> None:
    strict = {"type": "object", "required": ["id"]}
    result = run_layer(
        "json_schema", '{"name": "Ada", "age": 36}', {"schema": SCHEMA}, schema=strict
    )
    assert result.error_type is ErrorType.SCHEMA_ERROR


def test_it_blames_the_task_when_there_is_no_schema() -> None:
    assert run_layer("json_schema", "{}").error_type is ErrorType.VERIFIER_ERROR


def test_it_scores_the_share_of_facts_right() -> None:
    facts = {"name": "Ada", "address.city": "London", "tags.0": "x", "age": 36}
    good = '{"name": "Ada", "age": 36.0, "address": {"city": "London"}, "tags": ["x"]}'
    half = '{"name": "Ada", "age": 35, "address": {"city": "Paris"}, "tags": ["x"]}'
    assert run_layer("json_facts", good, {"facts": facts}).passed
    result = run_layer("json_facts", half, {"facts": facts})
    assert (result.passed, result.error_type, result.score) == (False, ErrorType.WRONG_ANSWER, 0.5)


def test_it_keeps_true_and_one_apart() -> None:
    assert not run_layer("json_facts", '{"ok": 1}', {"facts": {"ok": True}}).passed


def test_it_fails_a_schema_pattern_that_runs_out_of_time_instead_of_hanging() -> None:
    slow = {"type": "object", "properties": {"id": {"type": "string", "pattern": "(a|aa)+$"}}}
    answer = json.dumps({"id": "a" * 40 + "b"})
    for expected, params in (({"schema": slow}, {}), ({}, {"schema": slow})):
        started = time.process_time()
        result = run_layer("json_schema", answer, expected, **params)
        assert time.process_time() - started < 2.0
        assert (result.passed, result.error_type) == (False, ErrorType.TIMEOUT)


def test_it_blames_the_task_for_a_schema_past_the_size_limits() -> None:
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10_000)}}
    result = run_layer("json_schema", "{}", {"schema": huge})
    assert result.error_type is ErrorType.VERIFIER_ERROR
    assert "more than 5,000 values" in result.detail
    remote = run_layer("json_schema", "{}", {"schema": {"$ref": "http://127.0.0.1:1/s.json"}})
    assert remote.error_type is ErrorType.VERIFIER_ERROR and "inside the schema" in remote.detail
