import pytest

from tasks_app.verifiers.base import ErrorType
from tasks_app.verifiers.runner import Verifier, build_verifier, judge, playground
from tasks_app.verifiers.spec import SpecError

JSON_SPEC = {
    "extract": "json_object",
    "layers": [
        {"kind": "json_parse", "name": "parses"},
        {"kind": "json_facts", "name": "facts"},
        {"kind": "length", "name": "short", "params": {"max_chars": 40}},
    ],
    "reward": {
        "weights": {"outcome": 0.6, "process": 0.2, "constraint": 0.2},
        "failure_reward": -0.5,
    },
}
EXPECTED = {"facts": {"a": 1, "b": 2}}


def _states(verdict) -> list[tuple[str, bool, bool]]:
    return [(r.name, r.passed, r.skipped) for r in verdict.layers]


def test_it_passes_a_good_response_through_every_layer() -> None:
    verdict = judge(JSON_SPEC, '{"a": 1, "b": 2}', EXPECTED)
    assert verdict.passed and verdict.reward == pytest.approx(1.0)
    assert verdict.extracted == '{"a": 1, "b": 2}'
    assert [name for name, *_ in _states(verdict)] == ["extract", "parses", "facts", "short"]


def test_it_skips_later_layers_after_a_failure() -> None:
    verdict = judge(JSON_SPEC, '{"a": 1, "b": 3}', EXPECTED)
    assert _states(verdict)[2:] == [("facts", False, False), ("short", False, True)]
    assert verdict.error_type is ErrorType.WRONG_ANSWER
    assert verdict.layers[3].detail == "skipped: 'facts' failed"
    assert verdict.reward == pytest.approx(0.2 * 0.5)  # half the facts; the constraint never ran


def test_it_runs_on_after_a_layer_marked_continue_on_fail() -> None:
    spec = {**JSON_SPEC, "layers": [dict(item) for item in JSON_SPEC["layers"]]}
    spec["layers"][1]["continue_on_fail"] = True
    verdict = judge(spec, '{"a": 1, "b": 3}', EXPECTED)
    assert _states(verdict)[2:] == [("facts", False, False), ("short", True, False)]
    assert verdict.reward == pytest.approx(0.2 * 0.5 + 0.2)


def test_it_reports_the_first_failure_and_the_failure_reward() -> None:
    verdict = judge(JSON_SPEC, "I will not answer", EXPECTED)
    assert verdict.error_type is ErrorType.FORMAT_ERROR
    assert verdict.extracted is None and verdict.reward == -0.5
    assert all(r.skipped for r in verdict.layers[1:])
    broken = judge(JSON_SPEC, "{'a': 1}", EXPECTED)
    assert (broken.error_type, broken.reward) == (ErrorType.PARSE_ERROR, -0.5)


def test_it_turns_a_layer_crash_into_a_verifier_error() -> None:
    verdict = judge(JSON_SPEC, '{"a": 1}', {"facts": {1: 1}})  # a non-string path breaks lookup
    assert verdict.error_type is ErrorType.VERIFIER_ERROR


def test_it_shows_timings_and_the_hash_in_the_playground() -> None:
    shown = playground(JSON_SPEC, '{"a": 1, "b": 2}', EXPECTED)
    assert shown["passed"] and shown["spec_hash"] == Verifier(JSON_SPEC).hash
    assert all(layer["seconds"] >= 0 for layer in shown["layers"])
    assert shown["layers"][1]["stage"] == "syntax" and shown["seconds"] >= 0


def test_it_refuses_an_invalid_spec() -> None:
    with pytest.raises(SpecError):
        judge({"extract": "full_text", "layers": []}, "x", {})
    with pytest.raises(SpecError):
        judge({"extract": "full_text", "layers": [{"kind": "json_parse"}], "x": {1, 2}}, "x", {})


def test_it_reuses_the_verifier_for_an_equal_spec_and_serves_as_a_reward_function() -> None:
    assert build_verifier(JSON_SPEC) is build_verifier(dict(reversed(list(JSON_SPEC.items()))))
    assert build_verifier(JSON_SPEC)('{"a": 1, "b": 2}', EXPECTED) == pytest.approx(1.0)
