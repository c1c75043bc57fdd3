"""Running a verifier: extract, then each layer in order, then the reward.

A later layer runs only when every earlier one passed, unless the failing layer has
``continue_on_fail``; the layers not run are reported as skipped. Every layer is timed, and
an exception inside a layer becomes a ``verifier_error`` result instead of stopping the loop.
The first entry of ``Verdict.layers`` is the extraction step (kind ``extract``), so a
missing answer shows, and is counted, like any other failure.
"""

from __future__ import annotations

import json
import time
from functools import lru_cache
from typing import Any

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage, Verdict
from tasks_app.verifiers.extractors import extract
from tasks_app.verifiers.layers import layer_class
from tasks_app.verifiers.layers.base import Layer
from tasks_app.verifiers.reward import total_reward
from tasks_app.verifiers.spec import FieldError, Spec, SpecError, canonical, spec_hash


class Verifier:
    """A validated spec with its layers built; reuse one across many responses."""

    def __init__(self, spec: Spec) -> None:
        self.spec = canonical(spec)
        self.hash = spec_hash(self.spec)
        self.layers: list[tuple[Layer, bool]] = [
            (layer_class(item["kind"])(item["name"], item["params"]), item["continue_on_fail"])
            for item in self.spec["layers"]
        ]

    def judge(
        self,
        response: str,
        expected: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
    ) -> Verdict:
        response, expected, context = str(response or ""), expected or {}, context or {}
        extracted, first = self._extract(response)
        results = [first]
        blocked_by = None if first.passed else first.name
        for layer, continue_on_fail in self.layers:
            if blocked_by is not None:
                results.append(_skipped(layer, blocked_by))
                continue
            result = _timed_run(layer, extracted or "", response, expected, context)
            results.append(result)
            if not result.passed and not continue_on_fail:
                blocked_by = layer.name
        return self._verdict(results, extracted)

    def _extract(self, response: str) -> tuple[str | None, LayerResult]:
        name = self.spec["extract"]
        started = time.perf_counter()
        extracted = extract(name, response)
        result = LayerResult(
            name="extract",
            kind="extract",
            stage=Stage.SYNTAX,
            passed=extracted is not None,
            score=float(extracted is not None),
            info={"extractor": name},
            error_type=ErrorType.NONE if extracted is not None else ErrorType.FORMAT_ERROR,
            detail="" if extracted is not None else f"{name}: nothing to extract",
        )
        result.seconds = time.perf_counter() - started
        return extracted, result

    def _verdict(self, results: list[LayerResult], extracted: str | None) -> Verdict:
        reward, parts = total_reward(results, self.spec["reward"])
        failures = [r for r in results if not r.passed and not r.skipped]
        return Verdict(
            passed=not failures and all(r.passed for r in results),
            reward=reward,
            parts=parts,
            layers=results,
            error_type=failures[0].error_type if failures else ErrorType.NONE,
            extracted=extracted,
        )

    def __call__(self, response: str, expected: dict[str, Any] | None = None) -> float:
        """The scalar reward: a plain reward function for the training loop."""
        return self.judge(response, expected).reward


def _timed_run(
    layer: Layer, extracted: str, response: str, expected: dict[str, Any], context: dict[str, Any]
) -> LayerResult:
    started = time.perf_counter()
    try:
        result = layer.run(extracted, response, expected, context)
    except Exception as exc:  # one broken layer must not take down a training step
        result = layer.fail(ErrorType.VERIFIER_ERROR, f"{type(exc).__name__}: {exc}")
    result.seconds = time.perf_counter() - started
    return result


def _skipped(layer: Layer, blocked_by: str) -> LayerResult:
    result = layer.fail(ErrorType.NONE, f"skipped: {blocked_by!r} failed")
    result.skipped = True
    return result


@lru_cache(maxsize=64)
def _cached_verifier(spec_json: str) -> Verifier:
    return Verifier(json.loads(spec_json))


def build_verifier(spec: Spec) -> Verifier:
    """A Verifier for ``spec``, shared between calls with an equal spec. Raises SpecError."""
    try:
        key = json.dumps(spec, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise SpecError([FieldError("spec", f"must be plain JSON ({exc})")]) from None
    return _cached_verifier(key)


def judge(
    spec: Spec,
    response: str,
    expected: dict[str, Any] | None = None,
    *,
    context: dict[str, Any] | None = None,
) -> Verdict:
    """Judge one response; ``context`` may carry the task ``prompt`` for a model judge."""
    return build_verifier(spec).judge(response, expected, context)


def playground(
    spec: Spec,
    response: str,
    expected: dict[str, Any] | None = None,
    *,
    context: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The verdict as a JSON-able dict, per-layer timings included, for trying a verifier out."""
    verifier = build_verifier(spec)
    started = time.perf_counter()
    verdict = verifier.judge(response, expected, context)
    seconds = time.perf_counter() - started
    return {**verdict.to_dict(), "seconds": seconds, "spec_hash": verifier.hash}
