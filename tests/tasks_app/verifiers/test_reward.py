import pytest

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.reward import reward_parts, total_reward

WEIGHTS = {"outcome": 0.5, "process": 0.3, "constraint": 0.2, "judge": 0.0}


def _layer(
    stage: Stage, passed: bool, score: float | None = None, skipped: bool = False
) -> LayerResult:
    score = float(passed) if score is None else score
    return LayerResult("x", "k", stage, passed, score, ErrorType.NONE, skipped=skipped)


def test_it_weights_outcome_process_and_constraint() -> None:
    layers = [
        _layer(Stage.SYNTAX, True),
        _layer(Stage.SEMANTIC, False, 0.6),
        _layer(Stage.BOUNDARY, True, 1.0),
        _layer(Stage.CONSTRAINT, True),
    ]
    reward, parts = total_reward(layers, {"weights": WEIGHTS, "failure_reward": -1.0})
    assert parts == {"outcome": 0.0, "process": pytest.approx(0.8), "constraint": 1.0}
    assert reward == pytest.approx(0.5 * 0 + 0.3 * 0.8 + 0.2 * 1)


def test_it_gives_the_failure_reward_to_malformed_responses() -> None:
    layers = [_layer(Stage.SYNTAX, False), _layer(Stage.SEMANTIC, False, 0.0, skipped=True)]
    reward, parts = total_reward(layers, {"weights": WEIGHTS, "failure_reward": -1.0})
    assert reward == -1.0 and parts["outcome"] == 0.0


def test_it_scores_skipped_process_layers_zero_and_keeps_constraints_out_of_outcome() -> None:
    layers = [
        _layer(Stage.SEMANTIC, True),
        _layer(Stage.BOUNDARY, False, 0.0, skipped=True),
        _layer(Stage.CONSTRAINT, False),
    ]
    assert reward_parts(layers) == {"outcome": 0.0, "process": 0.5, "constraint": 0.0}
    assert reward_parts(layers[:1] + layers[2:])["outcome"] == 1.0


def test_it_uses_the_outcome_as_process_without_behaviour_layers() -> None:
    assert reward_parts([_layer(Stage.SYNTAX, True)])["process"] == 1.0


def test_it_adds_a_judge_part_only_with_a_judge() -> None:
    parts = reward_parts([_layer(Stage.SEMANTIC, True), _layer(Stage.JUDGE, True, 0.8)])
    assert parts["judge"] == 0.8
    assert "judge" not in reward_parts([_layer(Stage.SEMANTIC, True)])
