from tasks_app.families import python_function
from tasks_app.verifiers.stages import stage_warnings


def spec(*layers: dict) -> dict:
    return {"extract": "full_text", "layers": list(layers)}


PARSES = {"kind": "python_ast", "name": "parses"}
TESTS = {"kind": "unit_tests", "name": "tests"}
HIDDEN = {"kind": "hidden_tests", "name": "hidden"}
JUDGE = {"kind": "model_judge", "name": "judge", "params": {"model_path": "/m"}}
LENGTH = {"kind": "length", "name": "short", "params": {"max_chars": 10}}


def test_it_warns_that_a_syntax_layer_below_a_semantic_one_is_skipped_when_that_fails() -> None:
    assert stage_warnings(spec(TESTS, PARSES)) == [
        "'parses' (syntax) runs after 'tests' (semantics): it is skipped whenever tests fails"
    ]


def test_it_has_nothing_to_say_about_layers_in_stage_order() -> None:
    assert stage_warnings(spec(PARSES, TESTS, HIDDEN, LENGTH, JUDGE)) == []
    assert stage_warnings(spec(PARSES, TESTS, JUDGE, LENGTH)) == []
    assert stage_warnings(python_function.default_verifier()) == []


def test_it_names_the_first_layer_above_that_can_skip_each_misplaced_one() -> None:
    assert stage_warnings(spec(JUDGE, HIDDEN, TESTS)) == [
        "'hidden' (boundary) runs after 'judge' (judge): it is skipped whenever judge fails",
        "'tests' (semantics) runs after 'judge' (judge): it is skipped whenever judge fails",
    ]


def test_it_does_not_warn_below_a_layer_that_continues_on_failure() -> None:
    assert stage_warnings(spec({**TESTS, "continue_on_fail": True}, PARSES)) == []


def test_it_lets_a_constraint_gate_run_first() -> None:
    assert stage_warnings(spec(LENGTH, PARSES, TESTS)) == []


def test_it_leaves_an_invalid_spec_to_validation() -> None:
    assert stage_warnings({"layers": "nope"}) == []
    assert stage_warnings(spec({"kind": "nope"}, PARSES)) == []


def test_it_names_unnamed_layers_as_canonical_does() -> None:
    assert stage_warnings(spec({"kind": "unit_tests"}, {"kind": "python_ast"})) == [
        "'python_ast' (syntax) runs after 'unit_tests' (semantics): "
        "it is skipped whenever unit_tests fails"
    ]
