"""Layered verifiers: pure logic, no Django import.

Public entry points (the heavy parts, the sandbox and the model judge, load on first use)::

    validate_spec(spec) -> list[FieldError]       canonical(spec) / spec_hash(spec)
    judge(spec, response, expected, *, context)   -> Verdict
    playground(spec, response, expected, *, context) -> dict
    evaluate_examples(spec, examples) -> dict     calibrate_judge(spec, examples) -> dict
    stage_warnings(spec) -> list[str]             describe_layer_kinds() / describe_extractors()

A family kind's default spec is its module's ``default_verifier()`` (tasks_app.families.registry).
"""

from tasks_app.verifiers.examples import calibrate_judge, evaluate_examples
from tasks_app.verifiers.extractors import describe_extractors
from tasks_app.verifiers.layers import describe_layer_kinds
from tasks_app.verifiers.runner import Verifier, build_verifier, judge, playground
from tasks_app.verifiers.spec import FieldError, SpecError, canonical, spec_hash, validate_spec
from tasks_app.verifiers.stages import stage_warnings

__all__ = [
    "FieldError",
    "SpecError",
    "Verifier",
    "build_verifier",
    "calibrate_judge",
    "canonical",
    "describe_extractors",
    "describe_layer_kinds",
    "evaluate_examples",
    "judge",
    "playground",
    "spec_hash",
    "stage_warnings",
    "validate_spec",
]
