"""Database models of task families, pool versions, verifiers and curricula."""

from .curricula import Curriculum
from .families import PoolJob, PoolTask, PoolVersion, Split, TaskFamily
from .verifiers import ExampleProposal, LabelledExample, Verifier, VerifierVersion

__all__ = [
    "Curriculum",
    "ExampleProposal",
    "LabelledExample",
    "PoolJob",
    "PoolTask",
    "PoolVersion",
    "Split",
    "TaskFamily",
    "Verifier",
    "VerifierVersion",
]
