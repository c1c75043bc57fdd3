"""Labelled examples: how often a verifier accepts a known-bad response or rejects a good one,
and where a model judge's yes-threshold should sit.

An example is ``{"response": str, "expected": dict, "label": "good" | "bad"}`` (optionally a
``context`` dict, e.g. the task ``prompt`` for a model judge). A response is
*accepted* when its verdict passed. False-positive rate = bad accepted / bad; false-negative
rate = good rejected / good (None when there is no example of that label).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from tasks_app.verifiers.base import LayerResult
from tasks_app.verifiers.extractors import extract
from tasks_app.verifiers.layers import layer_class
from tasks_app.verifiers.runner import build_verifier
from tasks_app.verifiers.spec import FieldError, Spec, SpecError, canonical

LABELS = ("good", "bad")


def check_examples(examples: Any) -> None:
    """Raise SpecError naming ``examples[i].field`` for every malformed example."""
    if not isinstance(examples, list):
        raise SpecError([FieldError("examples", "must be a list")])
    errors = [error for i, ex in enumerate(examples) for error in _example_errors(i, ex)]
    if errors:
        raise SpecError(errors)


def _example_errors(index: int, example: Any) -> list[FieldError]:
    where = f"examples[{index}]"
    if not isinstance(example, dict):
        return [FieldError(where, "must be an object")]
    errors = []
    if not isinstance(example.get("response"), str):
        errors.append(FieldError(f"{where}.response", "must be a string"))
    if not isinstance(example.get("expected", {}), dict):
        errors.append(FieldError(f"{where}.expected", "must be an object"))
    if example.get("label") not in LABELS:
        errors.append(FieldError(f"{where}.label", 'must be "good" or "bad"'))
    return errors


def rates(accepted: list[bool], labels: list[str]) -> dict[str, Any]:
    """Confusion counts and FP/FN rates for accept decisions against good/bad labels."""
    pairs = list(zip(accepted, labels, strict=True))
    good, bad = labels.count("good"), labels.count("bad")
    fp = sum(1 for ok, label in pairs if ok and label == "bad")
    fn = sum(1 for ok, label in pairs if not ok and label == "good")
    return {
        "total": len(pairs),
        "good": good,
        "bad": bad,
        "true_positives": good - fn,
        "true_negatives": bad - fp,
        "false_positives": fp,
        "false_negatives": fn,
        "false_positive_rate": fp / bad if bad else None,
        "false_negative_rate": fn / good if good else None,
        "accuracy": (len(pairs) - fp - fn) / len(pairs) if pairs else None,
    }


def evaluate_examples(spec: Spec, examples: list[dict[str, Any]]) -> dict[str, Any]:
    """Judge every labelled example; counts, FP/FN rates, error types and the misjudged ones."""
    check_examples(examples)
    verifier = build_verifier(spec)
    verdicts = [
        verifier.judge(ex["response"], ex.get("expected") or {}, ex.get("context") or {})
        for ex in examples
    ]
    labels = [ex["label"] for ex in examples]
    report = rates([v.passed for v in verdicts], labels)
    report["error_types"] = dict(Counter(str(v.error_type) for v in verdicts if not v.passed))
    report["misjudged"] = [
        _misjudged(i, label, verdict)
        for i, (label, verdict) in enumerate(zip(labels, verdicts, strict=True))
        if verdict.passed != (label == "good")
    ]
    report["spec_hash"] = verifier.hash
    return report


def _misjudged(index: int, label: str, verdict: Any) -> dict[str, Any]:
    failed = next((r for r in verdict.layers if not r.passed and not r.skipped), None)
    return {
        "index": index,
        "label": label,
        "passed": verdict.passed,
        "reward": verdict.reward,
        "error_type": str(verdict.error_type),
        "layer": failed.name if failed else None,
        "detail": failed.detail if failed else "",
    }


def best_threshold(scores: list[float], labels: list[str]) -> tuple[float, dict[str, Any]]:
    """The accept-if-score>=t threshold with the fewest FP+FN; ties go to fewer false positives
    (an accepted bad answer is a reward to hack), then to the threshold nearest 0.5."""
    cuts = sorted(set(scores))
    candidates = [0.0, *((a + b) / 2 for a, b in zip(cuts, cuts[1:], strict=False)), 1.0]

    def cost(t: float) -> tuple[int, int, float]:
        counts = rates([s >= t for s in scores], labels)
        errors = counts["false_positives"] + counts["false_negatives"]
        return errors, counts["false_positives"], abs(t - 0.5)

    threshold = min(candidates, key=cost)
    return threshold, rates([s >= threshold for s in scores], labels)


def calibrate_judge(
    spec: Spec, examples: list[dict[str, Any]], *, layer: str | None = None
) -> dict[str, Any]:
    """Score the model-judge layer alone on each example and pick its threshold.

    Returns the threshold, the FP/FN figures at it, each example's P(yes), and ``spec``: a copy
    of the canonical spec with that threshold written in (save it as the next version).
    """
    check_examples(examples)
    spec = canonical(spec)
    index = _judge_index(spec, layer)
    item = spec["layers"][index]
    judge = layer_class(item["kind"])(item["name"], item["params"])
    scores = [_judge_score(spec["extract"], judge, ex) for ex in examples]
    labels = [ex["label"] for ex in examples]
    threshold, report = best_threshold(scores, labels)
    calibrated = copy.deepcopy(spec)
    calibrated["layers"][index]["params"]["threshold"] = threshold
    scored = [
        {"index": i, "label": lab, "p_yes": s}
        for i, (s, lab) in enumerate(zip(scores, labels, strict=True))
    ]
    return {
        "layer": item["name"],
        "threshold": threshold,
        **report,
        "scores": scored,
        "spec": calibrated,
    }


def _judge_index(spec: Spec, name: str | None) -> int:
    for index, item in enumerate(spec["layers"]):
        if item["kind"] == "model_judge" and name in (None, item["name"]):
            return index
    field = "layer" if name else "layers"
    raise SpecError(
        [FieldError(field, "no model_judge layer" + (f" named {name!r}" if name else ""))]
    )


def _judge_score(extractor: str, judge: Any, example: dict[str, Any]) -> float:
    """P(yes) for one example; 0 when nothing can be extracted (the judge would not run)."""
    extracted = extract(extractor, example["response"])
    if extracted is None:
        return 0.0
    result: LayerResult = judge.run(
        extracted, example["response"], example.get("expected") or {}, example.get("context") or {}
    )
    return float(result.info.get("p_yes", result.score))
