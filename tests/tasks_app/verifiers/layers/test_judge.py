from pathlib import Path

from tasks_app.verifiers.base import ErrorType, Stage
from tasks_app.verifiers.layers.judge import template_problem

from ..conftest import JUDGE_TEMPLATE
from .helpers import run_layer


def _judge(model_dir: Path, response: str, **params: object):
    return run_layer(
        "model_judge", response, model_path=str(model_dir), prompt_template=JUDGE_TEMPLATE, **params
    )


def test_it_scores_p_yes_and_marks_itself_biased(judge_model_dir: Path) -> None:
    good = _judge(judge_model_dir, "the answer is 3 right")
    bad = _judge(judge_model_dir, "the answer is 3 wrong")
    assert good.stage is Stage.JUDGE and good.biased and bad.biased
    assert good.passed and good.info["p_yes"] > 0.5
    assert good.info["tokens"] > 0  # what the judge read, counted in the run's usage
    assert bad.error_type is ErrorType.JUDGE_REJECTED
    assert bad.score == bad.info["p_yes"] < 0.5


def test_it_applies_its_threshold(judge_model_dir: Path) -> None:
    result = _judge(judge_model_dir, "the answer is 3 right", threshold=1.0)
    assert not result.passed and result.score > 0.5


def test_it_blames_the_verifier_for_a_missing_model(tmp_path: Path) -> None:
    result = run_layer("model_judge", "x", model_path=str(tmp_path / "absent"))
    assert result.error_type is ErrorType.VERIFIER_ERROR


def test_it_rejects_unknown_template_placeholders() -> None:
    assert template_problem("{response} {prompt}") is None
    assert "unknown" in (template_problem("{response} {secret}") or "")
