"""Layered verifiers: pure logic, no Django import.

Public entry points (the heavy parts, the sandbox and the model judge, load on first use)::

    validate_spec(spec) -> list[FieldError]       canonical(spec) / spec_hash(spec)
    judge(spec, response, expected, *, context)   -> Verdict
    playground(spec, response, expected, *, context) -> dict
    evaluate_examples(spec, examples) -> dict     calibrate_judge(spec, examples) -> dict
    default_spec(kind) -> dict                    describe_layer_kinds() / describe_extractors()
"""

from tasks_app.verifiers.defaults import default_spec
from tasks_app.verifiers.examples import calibrate_judge, evaluate_examples
from tasks_app.verifiers.extractors import describe_extractors
from tasks_app.verifiers.layers import describe_layer_kinds
from tasks_app.verifiers.runner import Verifier, build_verifier, judge, playground
from tasks_app.verifiers.spec import FieldError, SpecError, canonical, spec_hash, validate_spec

__all__ = [
    "FieldError",
    "SpecError",
    "Verifier",
    "build_verifier",
    "calibrate_judge",
    "canonical",
    "default_spec",
    "describe_extractors",
    "describe_layer_kinds",
    "evaluate_examples",
    "judge",
    "playground",
    "spec_hash",
    "validate_spec",
]
