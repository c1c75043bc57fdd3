"""The experiment configuration's serializers, generated from its dataclasses.

The dataclasses (``experiments.config``, ``tasks_app.curriculum``, ``training.config``) define
every field once; ``crucible.api.dataclass_serializers`` turns them into the serializers that
describe the configuration in the OpenAPI schema. Here: each dataclass's schema name.
"""

from __future__ import annotations

from crucible.api.dataclass_serializers import DataclassSerializers
from training.lora import LoraConfig
from training.prompting import PromptFormat

from .. import config as cfg

NAMES: dict[type, str] = {
    cfg.ExperimentConfig: "ExperimentConfig",
    cfg.CurriculumSpec: "ExperimentCurriculum",
    cfg.FamilySpec: "FamilyConfig",
    cfg.Origin: "Origin",
    cfg.EvalSpec: "EvalConfig",
    cfg.BudgetSpec: "Budget",
    PromptFormat: "PromptFormat",
    LoraConfig: "LoraConfig",
}
"""The schema's component name of each dataclass (default: the class's name)."""

serializer_for = DataclassSerializers(NAMES)
"""``serializer_for(cls, "stored" | "input")``: the serializer class describing ``cls``."""
