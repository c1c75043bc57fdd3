"""What every task-family kind produces and how the rest of the platform sees it.

Pure Python: no Django import. A *task* is one verifiable unit of work; ``expected`` holds
the JSON-able data a verifier needs to judge a response (the answer, unit tests, a schema,
a database...). Keys of ``expected`` used across the platform:

- ``answer``: the reference final answer (str for exact-match kinds, number for math)
- ``entry_point``, ``tests``, ``prelude``, ``hidden_tests``: python-function kinds
- ``schema``, ``facts``: json-schema kind
- ``schema_sql``, ``reference_sql``, ``expected_rows``, ``ordered``: sql-query kind
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Task:
    family: str
    """Kind name of the family that made it, e.g. ``"arithmetic"``."""
    prompt: str
    """The fully rendered prompt shown to the model."""
    expected: dict[str, Any]
    """JSON-able data the verifier needs (see module docstring for the keys)."""
    difficulty: int = 1
    """Grade on the family's difficulty scale; 1 is the easiest."""
    source_id: str = ""
    """Identifier in the source dataset (e.g. ``HumanEval/0``), empty for generated tasks."""
    meta: dict[str, Any] = field(default_factory=dict)

    def content_hash(self) -> str:
        """SHA-256 over the prompt and expected data; the identity used by pools and splits."""
        payload = json.dumps(
            {"prompt": self.prompt, "expected": self.expected}, sort_keys=True, default=str
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "prompt": self.prompt,
            "expected": self.expected,
            "difficulty": self.difficulty,
            "source_id": self.source_id,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        return cls(
            family=data["family"],
            prompt=data["prompt"],
            expected=dict(data["expected"]),
            difficulty=int(data.get("difficulty", 1)),
            source_id=data.get("source_id", ""),
            meta=dict(data.get("meta", {})),
        )


class RowError(ValueError):
    """One imported row is invalid: carries the field and the reason for the error list."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name
        self.reason = reason
