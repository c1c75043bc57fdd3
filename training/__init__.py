"""Crucible's RL post-training engine: a library, no Django.

from training import train, GRPOConfig
result = train(GRPOConfig(), sampler=..., reward_fn=..., sink=..., store=...)
"""

from training.config import (
    BaseConfig,
    GRPOConfig,
    ModelConfig,
    PPOConfig,
    RejectionConfig,
    RLOOConfig,
    SamplingConfig,
    SFTConfig,
    config_from_dict,
    load_config,
)
from training.engine import TrainResult, train
from training.evaluation import EvalResult, evaluate
from training.interfaces import (
    CheckpointStore,
    Control,
    DirectoryStore,
    Item,
    JsonlSink,
    ListSampler,
    MemorySink,
    MetricsSink,
    RewardFn,
    RewardResult,
    TaskSampler,
)

__all__ = [
    "BaseConfig",
    "CheckpointStore",
    "Control",
    "DirectoryStore",
    "EvalResult",
    "GRPOConfig",
    "Item",
    "JsonlSink",
    "ListSampler",
    "MemorySink",
    "MetricsSink",
    "ModelConfig",
    "PPOConfig",
    "RLOOConfig",
    "RejectionConfig",
    "RewardFn",
    "RewardResult",
    "SFTConfig",
    "SamplingConfig",
    "TaskSampler",
    "TrainResult",
    "config_from_dict",
    "evaluate",
    "load_config",
    "train",
]
