"""Experiments (frozen configurations), their runs, what runs record, and the workers."""

from .control import RunEvent, RunEventKind
from .experiments import Experiment
from .runs import Checkpoint, MetricPoint, Rollout, Run, RunState
from .usage import CostRate, TeamQuota, Usage
from .workers import Worker

__all__ = [
    "Checkpoint",
    "CostRate",
    "Experiment",
    "MetricPoint",
    "Rollout",
    "Run",
    "RunEvent",
    "RunEventKind",
    "RunState",
    "TeamQuota",
    "Usage",
    "Worker",
]
