import gc
import time

import pytest

from tasks_app.verifiers import safe_regex, safe_schema

SLOW = "(a|aa)+$"  # backtracks through every way of splitting the a's
NO_MATCH = "a" * 40 + "b"


def _wide(properties: int) -> dict[str, object]:
    return {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(properties)}}


def _deep(levels: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(levels):
        schema = {"items": schema}
    return schema


def test_it_accepts_an_ordinary_schema() -> None:
    assert safe_schema.schema_problem(_wide(20)) is None
    top = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/a"}
    assert safe_schema.schema_problem({**top, "$defs": {"a": {"type": "integer"}}}) is None


@pytest.mark.parametrize(
    ("schema", "reason_part"),
    [
        (_wide(10_000), "more than 5,000 values"),
        ({"enum": ["x" * safe_schema.SCHEMA_LIMIT_BYTES]}, "larger than 64 KiB"),
        (_deep(40), "deeper than 32"),
    ],
)
def test_it_refuses_an_oversized_schema_quickly(schema: object, reason_part: str) -> None:
    started = time.process_time()
    problem = safe_schema.schema_problem(schema)
    assert problem is not None and reason_part in problem
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize(
    ("schema", "reason_part"),
    [
        ({"$ref": "http://169.254.169.254/latest/meta-data"}, "must point inside the schema"),
        ({"$ref": "file:///etc/passwd"}, "must point inside the schema"),
        ({"$dynamicRef": "https://json-schema.org/draft/2020-12/schema"}, "inside the schema"),
        (
            {"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}},
            "$schema only at the top",
        ),
        (
            {"patternProperties": {"^a": {}}, "unevaluatedProperties": False},
            "cannot combine",
        ),
        ({"properties": {"a": {"pattern": "("}}}, "not a valid regular expression"),
        ({"patternProperties": {"(?:a{1000}){1000}": {}}}, "repeats too much"),
        ({"type": "nope"}, "is not a valid JSON Schema"),
    ],
)
def test_it_refuses_what_it_could_not_validate_within_its_limits(
    schema: object, reason_part: str
) -> None:
    problem = safe_schema.schema_problem(schema)
    assert problem is not None and reason_part in problem, problem


def test_it_validates_like_draft_2020_12() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "s": {"pattern": "^a"}},
        "patternProperties": {"^y": {"type": "string"}},
        "additionalProperties": False,
    }
    messages = [e.message for e in safe_schema.validation_errors(schema, {"x": 1, "y1": "ok"})]
    assert messages == []
    errors = safe_schema.validation_errors(schema, {"x": "1", "y1": 2, "z": 3, "s": "b"})
    assert len(errors) == 4
    assert any("'z'" in e.message for e in errors)


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"pattern": SLOW}, NO_MATCH),
        ({"patternProperties": {SLOW: {}}}, {NO_MATCH: 1}),
        ({"patternProperties": {SLOW: {}}, "additionalProperties": False}, {NO_MATCH: 1}),
        ({"propertyNames": {"pattern": SLOW}}, {NO_MATCH: 1}),
        # Through a $ref to a top that names its $schema: still this validator, still timed.
        (
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "anyOf": [{"type": "integer"}, {"properties": {"a": {"$ref": "#"}}}],
                "pattern": SLOW,
            },
            {"a": NO_MATCH},
        ),
    ],
)
def test_it_stops_a_slow_pattern_at_the_time_limit(schema: object, instance: object) -> None:
    started = time.process_time()
    with pytest.raises(safe_regex.TimeLimit):
        safe_schema.validation_errors(schema, instance)
    assert time.process_time() - started < 2.0


def test_it_stops_references_that_multiply_at_the_time_limit() -> None:
    defs: dict[str, object] = {
        f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(30)
    }
    defs["d30"] = {"type": "string", "minLength": 5}  # fails, so every branch is tried: 2**30
    schema = {"$defs": defs, "$ref": "#/$defs/d0"}
    assert safe_schema.schema_problem(schema) is None
    # The branches' errors pile up and trigger full garbage collections, which scan every
    # object of the process: late in a long test session one such pass alone can outlast
    # the deadline. Frozen, the session's objects are left out, so what is timed is the
    # validation's own work.
    gc.collect()
    gc.freeze()
    try:
        started, cpu = time.monotonic(), time.thread_time()
        with pytest.raises(safe_regex.TimeLimit):
            safe_schema.validation_errors(schema, "abc")
        cpu, wall = time.thread_time() - cpu, time.monotonic() - started
    finally:
        gc.unfreeze()
    # 2**30 branches would take hours: the work stops at the limit. The wall clock gets more
    # slack than this thread's CPU time, since on a loaded machine the thread may wait.
    assert cpu < safe_schema.VALIDATION_TIMEOUT_S + 0.75
    assert wall < safe_schema.VALIDATION_TIMEOUT_S + 5.0
