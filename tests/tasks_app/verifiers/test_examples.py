from pathlib import Path

import pytest

from tasks_app.verifiers.examples import best_threshold, calibrate_judge, evaluate_examples
from tasks_app.verifiers.runner import judge
from tasks_app.verifiers.spec import SpecError

from .conftest import JUDGE_TEMPLATE

# A deliberately loose verifier: the last number, so "18 ... 19" slips through as 19 and
# "I got 18, not 19" is wrongly rejected.
LOOSE = {"extract": "last_number", "layers": [{"kind": "numeric_match"}]}
EXPECTED = {"answer": "18"}
EXAMPLES = [
    {"response": "#### 18", "expected": EXPECTED, "label": "good"},
    {"response": "it is 18", "expected": EXPECTED, "label": "good"},
    {"response": "I got 18, not 19", "expected": EXPECTED, "label": "good"},
    {"response": "it is 19", "expected": EXPECTED, "label": "bad"},
    {"response": "19? no: 18", "expected": EXPECTED, "label": "bad"},
]


def test_it_reports_false_positive_and_false_negative_rates() -> None:
    report = evaluate_examples(LOOSE, EXAMPLES)
    assert (report["total"], report["good"], report["bad"]) == (5, 3, 2)
    assert (report["false_positives"], report["false_negatives"]) == (1, 1)
    assert report["false_positive_rate"] == 0.5
    assert report["false_negative_rate"] == pytest.approx(1 / 3)
    assert [m["index"] for m in report["misjudged"]] == [2, 4]
    assert report["misjudged"][0]["error_type"] == "wrong_answer"
    assert report["error_types"] == {"wrong_answer": 2}


def test_it_names_the_field_of_a_bad_example() -> None:
    with pytest.raises(SpecError) as caught:
        evaluate_examples(LOOSE, [{"response": "18", "label": "fine"}, {"label": "bad"}])
    assert set(caught.value.as_dict()) == {"examples[0].label", "examples[1].response"}


def test_it_picks_the_threshold_with_fewest_errors() -> None:
    scores = [0.9, 0.8, 0.35, 0.3, 0.6, 0.1]
    labels = ["good", "good", "good", "bad", "bad", "bad"]
    threshold, report = best_threshold(scores, labels)
    assert report["false_positives"] + report["false_negatives"] == 1
    assert threshold == pytest.approx(0.7)  # 0.325 also errs once, but by accepting a bad one
    assert (report["false_positives"], report["false_negatives"]) == (0, 1)


def _judge_spec(model_dir: Path, threshold: float = 0.99) -> dict:
    params = {
        "model_path": str(model_dir),
        "prompt_template": JUDGE_TEMPLATE,
        "threshold": threshold,
    }
    return {
        "extract": "full_text",
        "layers": [{"kind": "model_judge", "name": "judge", "params": params}],
    }


def test_it_calibrates_the_judge_on_labelled_examples(judge_model_dir: Path) -> None:
    words = [("right", "good"), ("wrong", "bad")]
    examples = [
        {"response": f"the answer is {n} {w}", "label": lab} for n in "135" for w, lab in words
    ]
    spec = _judge_spec(judge_model_dir)
    before = evaluate_examples(spec, examples)
    result = calibrate_judge(spec, examples)
    good = [s["p_yes"] for s in result["scores"] if s["label"] == "good"]
    bad = [s["p_yes"] for s in result["scores"] if s["label"] == "bad"]
    assert max(bad) < result["threshold"] <= min(good)
    assert (result["false_positives"], result["false_negatives"]) == (0, 0)
    after = evaluate_examples(result["spec"], examples)
    assert after["false_negatives"] == 0 <= before["false_negatives"]
    assert judge(result["spec"], "the answer is 2 right", {}).layers[1].biased


def test_it_requires_a_judge_layer_to_calibrate() -> None:
    with pytest.raises(SpecError):
        calibrate_judge(LOOSE, EXAMPLES)
