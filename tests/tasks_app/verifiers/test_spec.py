import pytest

from tasks_app.verifiers.spec import (
    FieldError,
    SpecError,
    canonical,
    check_spec,
    spec_hash,
    validate_spec,
)

SPEC = {
    "extract": "final_answer_or_last_number",
    "layers": [
        {"kind": "regex", "params": {"pattern": r"\d"}},
        {"kind": "numeric_match", "name": "answer", "params": {"abs_tol": 0.01}},
    ],
    "reward": {"weights": {"outcome": 1, "process": 0}, "failure_reward": -1},
}


HUGE_SCHEMA = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10_000)}}


def _reasons(spec: object) -> dict[str, str]:
    return {error.field: error.reason for error in validate_spec(spec)}


def test_it_accepts_a_valid_spec() -> None:
    assert validate_spec(SPEC) == []


def test_it_names_the_field_of_a_bad_param() -> None:
    spec = {
        **SPEC,
        "layers": [
            *SPEC["layers"],
            {"kind": "numeric_match", "name": "b", "params": {"abs_tol": -1}},
        ],
    }
    assert _reasons(spec) == {"layers[2].params.abs_tol": "must be a non-negative number"}


@pytest.mark.parametrize(
    ("change", "field", "reason_part"),
    [
        ({"extract": "nope"}, "extract", "must be one of"),
        ({"layers": []}, "layers", "at least 1"),
        ({"layers": [{"kind": "teleport"}]}, "layers[0].kind", "must be one of"),
        ({"layers": [{"name": "x"}]}, "layers[0].kind", "is required"),
        ({"layers": [{"kind": "regex"}]}, "layers[0].params.pattern", "is required"),
        (
            {"layers": [{"kind": "regex", "params": {"pattern": "("}}]},
            "layers[0].params.pattern",
            "regular expression",
        ),
        (
            {"layers": [{"kind": "regex", "params": {"pattern": "a", "flags": 1}}]},
            "layers[0].params.flags",
            "not a known field",
        ),
        (
            {"layers": [{"kind": "json_parse", "continue_on_fail": "yes"}]},
            "layers[0].continue_on_fail",
            "must be a boolean",
        ),
        ({"layers": [{"kind": "length"}]}, "layers[0].params.max_chars", "at least one"),
        (
            {"layers": [{"kind": "forbidden", "params": {"patterns": ["ok", "(("]}}]},
            "layers[0].params.patterns[1]",
            "regular expression",
        ),
        (
            {
                "layers": [
                    {"kind": "model_judge", "params": {"model_path": "m", "prompt_template": "{x}"}}
                ]
            },
            "layers[0].params.prompt_template",
            "unknown",
        ),
        (
            {"layers": [{"kind": "regex", "params": {"pattern": "(?:(?:a{1000}){1000}){10}"}}]},
            "layers[0].params.pattern",
            "repeats too much",
        ),
        (
            {"layers": [{"kind": "regex", "params": {"pattern": "a" * 1001}}]},
            "layers[0].params.pattern",
            "at most 1000 characters",
        ),
        (
            {"layers": [{"kind": "json_schema", "params": {"schema": {"pattern": "(?P<"}}}]},
            "layers[0].params.schema",
            "not a valid regular expression",
        ),
        (
            {"layers": [{"kind": "json_schema", "params": {"schema": HUGE_SCHEMA}}]},
            "layers[0].params.schema",
            "more than 5,000 values",
        ),
        (
            {"layers": [{"kind": "json_schema", "params": {"schema": {"$ref": "file:///x"}}}]},
            "layers[0].params.schema",
            "must point inside the schema",
        ),
        ({"reward": {"weights": {"outcome": 0}}}, "reward.weights", "positive"),
        ({"reward": {"weights": {"style": 1}}}, "reward.weights.style", "not a known field"),
        ({"reward": {"failure_reward": "low"}}, "reward.failure_reward", "must be a number"),
    ],
)
def test_it_names_the_field_of_each_problem(change: dict, field: str, reason_part: str) -> None:
    reasons = _reasons({**SPEC, **change})
    assert field in reasons, reasons
    assert reason_part in reasons[field]


def test_it_rejects_duplicate_layer_names() -> None:
    layers = [{"kind": "json_parse", "name": "a"}, {"kind": "json_parse", "name": "a"}]
    assert "layers[1].name" in _reasons({"extract": "json_object", "layers": layers})


def test_it_rejects_what_is_not_an_object() -> None:
    assert _reasons([1]) == {"spec": "must be an object"}


def test_it_raises_with_every_error() -> None:
    with pytest.raises(SpecError) as caught:
        check_spec({"extract": "nope", "layers": [{"kind": "teleport"}]})
    assert set(caught.value.as_dict()) == {"extract", "layers[0].kind"}


def test_it_writes_defaults_names_and_floats_into_the_canonical_form() -> None:
    form = canonical(SPEC)
    assert [layer["name"] for layer in form["layers"]] == ["regex", "answer"]
    assert form["layers"][0]["params"] == {
        "pattern": r"\d",
        "fullmatch": False,
        "ignore_case": False,
    }
    assert form["layers"][1]["params"]["rel_tol"] == 0.0
    assert form["reward"] == {
        "weights": {"outcome": 1.0, "process": 0.0, "constraint": 0.0, "judge": 0.0},
        "failure_reward": -1.0,
    }
    assert canonical(form) == form


def test_it_names_unnamed_layers_of_one_kind_apart() -> None:
    layers = [
        {"kind": "json_parse"},
        {"kind": "json_parse"},
        {"kind": "json_parse", "name": "json_parse_2"},
    ]
    names = [
        layer["name"] for layer in canonical({"extract": "json_object", "layers": layers})["layers"]
    ]
    assert names == ["json_parse", "json_parse_3", "json_parse_2"]


def test_it_hashes_equal_meanings_equally() -> None:
    reordered = {
        "reward": {"failure_reward": -1.0, "weights": {"process": 0.0, "outcome": 1.0}},
        "layers": [
            {
                "params": {"pattern": r"\d", "fullmatch": False},
                "kind": "regex",
                "continue_on_fail": False,
            },
            {"name": "answer", "kind": "numeric_match", "params": {"abs_tol": 0.01, "rel_tol": 0}},
        ],
        "extract": "final_answer_or_last_number",
    }
    assert spec_hash(reordered) == spec_hash(SPEC) == spec_hash(canonical(SPEC))
    changed = {**SPEC, "reward": {"weights": {"outcome": 1}, "failure_reward": 0}}
    assert spec_hash(changed) != spec_hash(SPEC)


def test_it_refuses_more_layers_than_the_cap_with_one_error_before_checking_them() -> None:
    # 100,000 same-named layers: checked one by one, the duplicate names alone are quadratic.
    layers = [{"kind": "json_parse", "name": "same"}] * 100_000
    errors = validate_spec({"extract": "full_text", "layers": layers})
    assert [(e.field, e.reason) for e in errors] == [("layers", "at most 32 layers, got 100000")]
    assert validate_spec({"extract": "full_text", "layers": [{"kind": "json_parse"}] * 32}) == []


def test_it_writes_a_forbidden_layers_old_target_as_scope() -> None:
    old = {
        "extract": "full_text",
        "layers": [{"kind": "forbidden", "params": {"target": "extracted"}}],
    }
    new = {
        "extract": "full_text",
        "layers": [{"kind": "forbidden", "params": {"scope": "answer"}}],
    }
    assert canonical(old) == canonical(new)
    assert canonical(old)["layers"][0]["params"] == {"scope": "answer"}
    both = {"kind": "forbidden", "params": {"target": "extracted", "scope": "answer"}}
    assert validate_spec({"extract": "full_text", "layers": [both]}) == [
        FieldError("layers[0].params.target", "is the old name of scope; give only scope")
    ]


def test_it_checks_the_whole_response_unless_a_forbidden_layer_says_otherwise() -> None:
    spec = {"extract": "full_text", "layers": [{"kind": "forbidden"}]}
    assert canonical(spec)["layers"][0]["params"] == {"scope": "response"}


def test_it_reports_layers_that_are_not_a_list_instead_of_failing() -> None:
    for layers in (True, 3, "parses", {"kind": "regex"}):
        assert _reasons({"extract": "full_text", "layers": layers}) == {
            "layers": "must be an array"
        }, layers


def test_it_reports_a_layer_kind_that_is_not_a_string_instead_of_failing() -> None:
    for kind in ({}, [], 1):
        reasons = _reasons({"extract": "full_text", "layers": [{"kind": kind}]})
        assert set(reasons) == {"layers[0].kind"}, kind
