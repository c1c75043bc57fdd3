"""Experiments (frozen configurations), their runs, what runs record, and the workers."""

from .experiments import Experiment
from .runs import Checkpoint, MetricPoint, Rollout, Run, RunState
from .workers import Worker

__all__ = ["Checkpoint", "Experiment", "MetricPoint", "Rollout", "Run", "RunState", "Worker"]
