"""An episode's verdict: the family verifier on the final answer, plus the turns' process parts."""

import pytest

from tasks_app.environments.judging import judge_episode, turn_parts
from tasks_app.verifiers.spec import canonical, spec_hash

MATH = {
    "extract": "final_answer_or_last_number",
    "layers": [{"kind": "numeric_match", "name": "answer"}],
}


def weighted(**weights: float) -> dict:
    return {**MATH, "reward": {"weights": {"outcome": 1.0, **weights}}}


def test_each_turn_part_is_the_share_of_turns_free_of_its_error():
    parts = turn_parts([None, "tool_error", "tool_call_parse", "tool_error"])
    assert parts == {"tool_format": 0.75, "tool_success": 0.5, "valid_moves": 1.0}
    assert turn_parts([]) == {"tool_format": 1.0, "tool_success": 1.0, "valid_moves": 1.0}


def test_the_outcome_is_the_verifier_on_the_final_answer():
    verdict = judge_episode(MATH, {"answer": "#### 391"}, [None, None], {"answer": 391})
    assert verdict.passed and verdict.reward == 1.0
    assert verdict.parts["outcome"] == 1.0 and verdict.parts["tool_success"] == 1.0


def test_a_spec_weighs_the_turn_parts_into_the_reward():
    spec = weighted(tool_format=0.5, tool_success=0.25)
    errors = [None, "tool_call_parse", None, "tool_error"]
    verdict = judge_episode(spec, {"answer": "#### 390"}, errors, {"answer": 391})
    assert not verdict.passed
    assert verdict.reward == pytest.approx(0.5 * 0.75 + 0.25 * 0.75)


def test_a_missing_answer_gets_the_failure_reward_whatever_the_turns():
    spec = {
        **weighted(tool_format=1.0),
        "reward": {"weights": {"tool_format": 1.0}, "failure_reward": -1},
    }
    verdict = judge_episode(spec, {"answer": "", "answered": False}, [None], {"answer": 1})
    assert verdict.reward == -1.0 and verdict.error_type == "format_error"


def test_an_unweighted_turn_part_leaves_a_specs_hash_as_it_was():
    plain = {**MATH, "reward": {"weights": {"outcome": 1.0}}}
    assert spec_hash(plain) == spec_hash(weighted(tool_format=0.0))
    assert canonical(weighted(tool_format=0.5))["reward"]["weights"]["tool_format"] == 0.5
    assert "tool_format" not in canonical(plain)["reward"]["weights"]
