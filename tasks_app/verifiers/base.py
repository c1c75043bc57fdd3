"""The verdict a verifier returns and the one error taxonomy shared by every layer.

Pure Python: no Django import.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class ErrorType(StrEnum):
    NONE = "none"
    FORMAT_ERROR = (
        "format_error"  # the response lacks the required shape (no code block, no answer)
    )
    PARSE_ERROR = "parse_error"  # JSON / Python / SQL does not parse
    SCHEMA_ERROR = "schema_error"  # parses but does not match the JSON schema
    RUNTIME_ERROR = "runtime_error"  # raised while running
    WRONG_ANSWER = "wrong_answer"  # ran, but the result is not the expected one
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    FORBIDDEN = "forbidden"  # forbidden pattern, import or syscall
    LENGTH_LIMIT = "length_limit"
    JUDGE_REJECTED = "judge_rejected"
    SANDBOX_ERROR = "sandbox_error"  # the sandbox itself failed; not the response's fault
    VERIFIER_ERROR = "verifier_error"  # the verifier or the task lacks what a layer needs


class Stage(StrEnum):
    SYNTAX = "syntax"  # layer 1: parses, format, schema
    SEMANTIC = "semantic"  # layer 2: behaviour, answer comparison
    BOUNDARY = "boundary"  # layer 3: hidden and edge cases
    CONSTRAINT = "constraint"  # length, forbidden patterns, safety
    JUDGE = "judge"  # model-assisted, marked as biased


@dataclass
class LayerResult:
    name: str
    kind: str
    stage: Stage
    passed: bool
    score: float  # in [0, 1]; e.g. the fraction of tests passed
    error_type: ErrorType = ErrorType.NONE
    detail: str = ""
    seconds: float = 0.0
    skipped: bool = False
    biased: bool = False  # a model-assisted judgement: calibrate it before trusting it
    info: dict[str, Any] = field(default_factory=dict)  # JSON-able figures: tests run, P(yes)...

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["stage"] = str(self.stage)
        data["error_type"] = str(self.error_type)
        return data


@dataclass
class Verdict:
    passed: bool
    reward: float
    parts: dict[str, float]  # outcome / process / constraint (and any extra named parts)
    layers: list[LayerResult] = field(default_factory=list)
    error_type: ErrorType = ErrorType.NONE  # of the first failing layer
    extracted: str | None = None  # what was judged, after extraction from the response

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "reward": self.reward,
            "parts": dict(self.parts),
            "error_type": str(self.error_type),
            "extracted": self.extracted,
            "layers": [layer.to_dict() for layer in self.layers],
        }
