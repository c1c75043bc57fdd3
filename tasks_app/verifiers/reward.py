"""From layer results to one scalar reward and its named parts.

Parts, each in [0, 1]:

- ``outcome``: 1 when every non-constraint layer passed (extraction, syntax, semantics,
  boundary, judge), else 0. A layer skipped because an earlier one failed has not passed.
- ``process``: the mean score of the semantic and boundary layers, e.g. the fraction of unit
  tests passed, with a skipped layer scoring 0; equal to ``outcome`` when there are none.
- ``constraint``: 1 when every constraint layer passed, else 0. Place constraint layers first,
  or give them ``continue_on_fail``, so they always run.
- ``judge`` (only with a model judge): the mean P(yes) of the judge layers.

``reward = failure_reward`` when extraction or a syntax layer failed (the response has no
judgeable form); otherwise ``sum(weights[part] * parts[part])``. Weights need not sum to 1.
"""

from __future__ import annotations

from typing import Any

from tasks_app.verifiers.base import LayerResult, Stage

_PROCESS_STAGES = {Stage.SEMANTIC, Stage.BOUNDARY}


def _mean(values: list[float], empty: float) -> float:
    return sum(values) / len(values) if values else empty


def reward_parts(layers: list[LayerResult]) -> dict[str, float]:
    outcome = float(all(r.passed for r in layers if r.stage is not Stage.CONSTRAINT))
    process_scores = [
        0.0 if r.skipped and not r.passed else r.score for r in layers if r.stage in _PROCESS_STAGES
    ]
    constraint = float(all(r.passed for r in layers if r.stage is Stage.CONSTRAINT))
    parts = {
        "outcome": outcome,
        "process": _mean(process_scores, outcome),
        "constraint": constraint,
    }
    judges = [r.score for r in layers if r.stage is Stage.JUDGE and not r.skipped]
    if any(r.stage is Stage.JUDGE for r in layers):
        parts["judge"] = _mean(judges, 0.0)
    return parts


def malformed(layers: list[LayerResult]) -> bool:
    """Extraction or a syntax layer ran and failed."""
    return any(r.stage is Stage.SYNTAX and not r.passed and not r.skipped for r in layers)


def total_reward(
    layers: list[LayerResult], reward_spec: dict[str, Any]
) -> tuple[float, dict[str, float]]:
    """(reward, parts) for canonical ``reward_spec`` = {"weights": {...}, "failure_reward": x}."""
    parts = reward_parts(layers)
    if malformed(layers):
        return float(reward_spec["failure_reward"]), parts
    weights = reward_spec["weights"]
    return sum(weights.get(name, 0.0) * value for name, value in parts.items()), parts
