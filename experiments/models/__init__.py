"""Experiments (frozen configurations), their runs, what runs record, and the workers."""

from .control import RunEvent, RunEventKind
from .evaluation import (
    REPORT_CHARTS,
    EvaluationJob,
    EvaluationReport,
    EvaluationResult,
    EvaluationState,
    Promotion,
    ReportComment,
    ReportReview,
    ReportState,
    ReviewDecision,
    ReviewPolicy,
)
from .experiments import Experiment
from .health import HealthSettings
from .preflight import PreflightReport, PreflightState
from .registry import ModelAlias, ModelVersion, RegisteredModel
from .runs import Checkpoint, MetricPoint, Rollout, Run, RunSource, RunState
from .suites import EvaluationSuite
from .uploads import CheckpointUpload, UploadState
from .usage import CostRate, TeamQuota, Usage
from .workers import Worker

__all__ = [
    "Checkpoint",
    "CheckpointUpload",
    "CostRate",
    "EvaluationJob",
    "EvaluationReport",
    "EvaluationResult",
    "EvaluationState",
    "EvaluationSuite",
    "Experiment",
    "HealthSettings",
    "MetricPoint",
    "ModelAlias",
    "ModelVersion",
    "PreflightReport",
    "PreflightState",
    "Promotion",
    "REPORT_CHARTS",
    "RegisteredModel",
    "ReportComment",
    "ReportReview",
    "ReportState",
    "ReviewDecision",
    "ReviewPolicy",
    "Rollout",
    "Run",
    "RunEvent",
    "RunEventKind",
    "RunSource",
    "RunState",
    "TeamQuota",
    "UploadState",
    "Usage",
    "Worker",
]
