"""An experiment's configuration: its shape, its validation, its canonical form and hash.

Pure Python (no Django): the service resolves ids against the database, this module checks
everything that needs no database and names the field of every problem. The stored shape::

    {"curriculum": {"families": [{"pool_version": 12, "verifier_version": 7, "weight": 1.0,
                                  "levels": [1, 2, 3], "initial": null}],
                    "band": [0.3, 0.7], "floor": 0.05, "window": 64, "step": 0.2,
                    "dynamic": true, "origin": null},
     "model": "tiny-digit-sort",
     "algorithm": "grpo",
     "hyperparameters": {...every field of the algorithm's engine config...},
     "eval": {"every": 10, "families": [12], "max_tasks": 200},   # or {"every": 10, "suite": 3}
     "seed": 0, "num_processes": 1, "strategy": "ddp", "rollout_groups": 16,
     "budget": {"max_worker_hours": null, "max_cost": null},
     "prompt_format": {"kind": "chat", "system_prompt": null,   # absent: raw
                       "reasoning_tags": ["<think>", "</think>"]},
     "lora": {"rank": 8, "alpha": 16, "dropout": 0.0, "target_modules": null}}  # absent: off

Each part is defined once, in the dataclass that owns it: the policy knobs in
``tasks_app.curriculum.CurriculumPolicy``, the hyperparameters in the engine's configs
(``training.config``), the rest below; each field's type, default, range and help (its
docstring) live on the field, ``training.field_spec.load`` checks JSON against them, the API's
serializers are generated from them, and the canonical form is ``dataclasses.asdict`` of the
parsed config. ``hyperparameters`` are checked by the engine's own config (its fields, then
``validate``) and stored resolved, defaults included, so an experiment means the same thing
after a default changes in the code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from experiments.launch import STRATEGIES
from tasks_app.curriculum import CurriculumConfig, CurriculumPolicy, PinnedFamily, floor_fits
from training.config import CONFIGS, BaseConfig, config_from_dict
from training.field_spec import Problems, build, load, setting
from training.fields import Range, bounded, field_range
from training.lora import LoraConfig
from training.prompting import RAW_FORMAT, PromptFormat

RESERVED_HYPERPARAMETERS = {
    "algorithm": "set by config.algorithm",
    "seed": "set by config.seed",
    "model": "set by config.model",
    "eval_every": "set by config.eval.every",
    "resume": "a run always resumes from its last checkpoint",
}
MAX_FAMILIES = 64
MAX_PROCESSES = 8
MAX_ROLLOUT_GROUPS = 256
DEFAULT_ROLLOUT_GROUPS = 16
MAX_EVAL_TASKS = 5_000
DEFAULT_EVAL_TASKS = 200
MAX_MODEL_NAME = 200
MAX_BUDGET = 1e9
ID = Range(1, 2**63 - 1)
"""A database id."""


class ConfigError(ValueError):
    """Every problem found, each as (field path, reason); paths are relative to the config."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))
        self.errors = errors


POLICY_KNOBS = tuple(f.name for f in dataclasses.fields(CurriculumPolicy) if f.name != "families")
"""The curriculum policy's own fields (band, floor...): a saved curriculum's, copied in."""
SAVED_FAMILY_KEYS = tuple(f.name for f in dataclasses.fields(PinnedFamily) if f.name != "version")
"""A saved curriculum's family fields that an experiment's family has too (weight, levels...)."""


def _ascending(levels: list[int]) -> str | None:
    return None if sorted(set(levels)) == levels else "not ascending and distinct"


def _some_share(initial: list[float]) -> str | None:
    return None if sum(initial) > 0 else "all zero"


@dataclass(frozen=True)
class FamilySpec:
    pool_version: int = setting(bounds=ID, message="must be an id (a positive whole number)")
    """Id of the pinned task-pool version; its train split is sampled, its held-out split
    is the evaluation set."""
    verifier_version: int = setting(bounds=ID, message="must be an id (a positive whole number)")
    """Id of the verifier version that judges this family's completions."""
    weight: float = setting(1.0, bounds=Range(0.0, 1e6), cast=float)
    """Mixture weight of the family in each batch."""
    levels: list[int] | None = setting(
        None, items=(1, None), check=_ascending, message="must be ascending, distinct whole numbers"
    )
    """Difficulty levels that may be sampled; on input null means every level the version has
    train tasks at (stored resolved)."""
    initial: list[float] | None = setting(
        None,
        bounds=Range(0.0, 1e9),
        check=_some_share,
        message="must give a non-negative share per level, not all zero",
    )
    """Starting distribution over ``levels``; null puts all mass on the easiest."""

    def problems(self) -> list[tuple[str, str]]:
        if self.levels is not None and self.initial is not None:
            if len(self.levels) != len(self.initial):
                return [("initial", "must give a non-negative share per level, not all zero")]
        return []


@dataclass(frozen=True)
class Origin:
    curriculum: int = setting(bounds=ID)
    """The saved curriculum it was copied from."""
    revision: int = setting(bounds=ID)
    """Its revision at the time."""


@dataclass(frozen=True)
class CurriculumSpec(CurriculumPolicy[FamilySpec]):
    families: list[FamilySpec] = setting(items=(1, MAX_FAMILIES))
    """The families each batch mixes, in order, each pinned by pool version."""
    origin: Origin | None = setting(None, message="must be null or {curriculum: id, revision: n}")
    """Set when copied from a saved curriculum: its id and revision."""

    def problems(self) -> list[tuple[str, str]]:
        """What the pure policy checks beyond single fields (the floor against the levels...)."""
        for i, fam in enumerate(self.families):
            if fam.pool_version in {f.pool_version for f in self.families[:i]}:
                return [(f"families[{i}].pool_version", "pool version appears twice")]
        for fam in self.families:
            if fam.levels is not None and not floor_fits(self.floor, fam.levels):
                return [("floor", f"floor {self.floor} x {len(fam.levels)} levels exceeds 1")]
        if all(f.weight == 0 for f in self.families):
            return [("families", "at least one family needs a positive weight")]
        if any(f.levels is None for f in self.families):
            return []
        try:
            self.policy({f.pool_version: f"v{f.pool_version}" for f in self.families})
        except (TypeError, ValueError) as exc:
            # The policy names its fields when it can (``families[0].initial``).
            return getattr(exc, "errors", None) or [("", str(exc))]
        return []

    def saved_form(self) -> dict[str, Any]:
        """The curriculum as the curriculum service reads a saved one (pinned by pool version)."""
        families = [
            {
                "version": f.pool_version,
                "weight": f.weight,
                "levels": f.levels,
                "initial": f.initial,
            }
            for f in self.families
        ]
        return {**self._knobs(), "families": families}

    def policy(self, names: Mapping[int, str]) -> CurriculumConfig:
        """The pure policy, families named by ``names[pool_version]`` (the family slugs)."""
        families = [
            {
                "name": names[f.pool_version],
                "levels": f.levels,
                "weight": f.weight,
                "initial": f.initial,
            }
            for f in self.families
        ]
        return CurriculumConfig.from_dict({**self._knobs(), "families": families})

    def _knobs(self) -> dict[str, Any]:
        knobs = {name: getattr(self, name) for name in POLICY_KNOBS}
        return {**knobs, "band": list(self.band)}


@dataclass(frozen=True)
class EvalSpec:
    every: int = setting(0, bounds=field_range(BaseConfig, "eval_every"))
    """Evaluate the held-out sets every this many steps (0 = never during training)."""
    families: list[int] = setting(
        factory=list, bounds=ID, message="must be a list of pool version ids"
    )
    """Pool version ids whose held-out split is evaluated (a subset of the curriculum's); on
    input, absent means every family of the curriculum."""
    max_tasks: int = bounded(DEFAULT_EVAL_TASKS, 1, MAX_EVAL_TASKS)
    """Held-out tasks evaluated per family, at most."""
    suite: int | None = setting(
        None, bounds=ID, message="must be the id of an evaluation suite of your team"
    )
    """Id of an evaluation suite of the team: its families and ``max_tasks`` replace the two
    above (the service fills them in), and a succeeded run's final checkpoint is evaluated on
    it. Null (stored: absent): no suite."""

    omitted_when_null: ClassVar[tuple[str, ...]] = ("suite",)
    """Fields the stored form leaves out when null (configurations from before the suite
    keep their form, and their hash)."""

    def problems(self) -> list[tuple[str, str]]:
        if len(set(self.families)) != len(self.families):
            return [("families", "a pool version appears twice")]
        return []


NO_LIMIT = "must be null (no limit) or a number above 0"


@dataclass(frozen=True)
class BudgetSpec:
    """What one run may use; a run that crosses either limit pauses itself and says why."""

    max_worker_hours: float | None = setting(
        None, bounds=Range(0, MAX_BUDGET, low_open=True), message=NO_LIMIT, cast=float
    )
    """Hours its workers may spend on it (times its processes); null: no limit."""
    max_cost: float | None = setting(
        None, bounds=Range(0, MAX_BUDGET, low_open=True), message=NO_LIMIT, cast=float
    )
    """Cost it may reach at the queues' rates; null: no limit."""


BUDGET_KEYS = tuple(f.name for f in dataclasses.fields(BudgetSpec))


def _model_problem(name: str) -> str | None:
    if not name.strip():
        return "must be the name of a model a worker offers"
    if len(name) > MAX_MODEL_NAME or any(ord(c) < 32 for c in name):
        return f"must be a name of at most {MAX_MODEL_NAME} printable characters"
    return None


@dataclass(frozen=True)
class ExperimentConfig:
    curriculum: CurriculumSpec = setting()
    """The families trained on and the policy that moves their difficulty. On input it may
    instead be ``{"saved": <curriculum id>, "verifiers": {"<pool version id>": <verifier
    version id>}}``, which copies a saved curriculum in."""
    model: str = setting(check=_model_problem, cast=str.strip)
    """A model a running worker offers (GET /models/): a catalogue name or a model
    directory's name."""
    algorithm: str = setting("grpo", choices=tuple(sorted(CONFIGS)))
    """The training algorithm; ``hyperparameters`` are its engine config's fields."""
    hyperparameters: dict[str, Any] = setting(
        factory=dict,
        fields_of=(
            tuple(CONFIGS[name] for name in sorted(CONFIGS)),
            frozenset(RESERVED_HYPERPARAMETERS),
        ),
    )
    """Fields of the algorithm's engine config; stored resolved, every field with its default
    included, minus those set elsewhere (seed, eval.every, model)."""
    eval: EvalSpec = setting(factory=EvalSpec)
    """Held-out evaluation during training, and after it with a suite."""
    seed: int = setting(0, bounds=field_range(BaseConfig, "seed"))
    """Seeds python, numpy and torch; with the same seed a CPU run is bit-reproducible."""
    num_processes: int = bounded(1, 1, MAX_PROCESSES)
    """Processes a run trains on (one per GPU); ``prompts_per_step`` must be a multiple."""
    strategy: str = setting("ddp", choices=tuple(STRATEGIES))
    """How several processes share the model: ``ddp`` (a replica each), ``fsdp`` or
    ``deepspeed`` (sharded; GPUs only)."""
    rollout_groups: int = bounded(DEFAULT_ROLLOUT_GROUPS, 0, MAX_ROLLOUT_GROUPS)
    """Groups of completions (with their verdicts) stored per step for the run's page."""
    budget: BudgetSpec = setting(factory=BudgetSpec)
    """What each run may use; a run that crosses it pauses itself and says why."""
    prompt_format: PromptFormat | None = setting(None)
    """How each task's prompt becomes model input: ``raw`` (the text as it is) or ``chat``
    (the model's chat template, an optional system prompt, a reasoning section cut before the
    verifier reads the answer). Null (stored: absent, and a raw format is stored so): raw."""
    lora: LoraConfig | None = setting(None)
    """Train LoRA adapters on the frozen base instead of every weight; the run's checkpoints
    are adapters. Null (stored: absent, and rank 0 is stored so): full fine-tuning."""

    omitted_when_null: ClassVar[tuple[str, ...]] = ("prompt_format", "lora")
    """Fields the stored form leaves out when null (configurations from before them keep
    their form, and their hash)."""

    def to_dict(self) -> dict[str, Any]:
        """The canonical form: JSON types only, every field present."""
        data = dataclasses.asdict(self)
        for name in EvalSpec.omitted_when_null:
            if data["eval"][name] is None:
                del data["eval"][name]
        for name in self.omitted_when_null:
            if data[name] is None:
                del data[name]
        return json.loads(json.dumps(data))

    def engine_config(self, model_path: str | None = None) -> BaseConfig:
        """The engine's config for a run: hyperparameters plus the fields set elsewhere."""
        return config_from_dict(
            {
                **self.hyperparameters,
                "algorithm": self.algorithm,
                "seed": self.seed,
                "eval_every": self.eval.every,
                "resume": True,
                "model": {"path": model_path, "lora": dataclasses.asdict(self.lora_config)},
            }
        )

    @property
    def format(self) -> PromptFormat:
        """The prompt format its runs train, evaluate and serve in (raw when not set)."""
        return self.prompt_format or RAW_FORMAT

    @property
    def lora_config(self) -> LoraConfig:
        """Its LoRA settings (rank 0, off, when not set)."""
        return self.lora or LoraConfig()

    @property
    def pool_versions(self) -> list[int]:
        return [fam.pool_version for fam in self.curriculum.families]


def parse(data: Any) -> ExperimentConfig:
    """Validate ``data`` and return its resolved form; ConfigError names every bad field."""
    errors: list[tuple[str, str]] = []
    parsed = _load(ExperimentConfig, data, "", errors)
    hyperparameters = None
    algorithm = data.get("algorithm", "grpo") if isinstance(data, dict) else None
    if isinstance(algorithm, str) and algorithm in CONFIGS:
        raw = data.get("hyperparameters", {})
        if isinstance(raw, dict):
            hyperparameters = _hyperparameters(algorithm, raw, errors)
    if parsed is None or hyperparameters is None or errors:
        raise ConfigError(errors)
    if "families" not in data.get("eval", {}):
        evaluation = dataclasses.replace(parsed.eval, families=parsed.pool_versions)
        parsed = dataclasses.replace(parsed, eval=evaluation)
    parsed = dataclasses.replace(
        parsed,
        hyperparameters=hyperparameters,
        # The defaults are stored as absent, so an explicit raw format or rank 0 hashes alike.
        prompt_format=None if parsed.prompt_format == RAW_FORMAT else parsed.prompt_format,
        lora=parsed.lora if parsed.lora is not None and parsed.lora.enabled else None,
    )
    errors = _across(parsed)
    if errors:
        raise ConfigError(errors)
    return parsed


def _load(cls: type[Any], data: Any, path: str, errors: list[tuple[str, str]]) -> Any:
    try:
        return load(cls, data, path)
    except Problems as exc:
        errors += exc.errors
        return None


def _across(config: ExperimentConfig) -> list[tuple[str, str]]:
    """Checks between parts of the configuration."""
    errors = []
    processes = config.num_processes
    if config.algorithm == "rejection" and processes > 1:
        # Each rank keeps a different number of passing answers, so ranks would run different
        # numbers of update passes and wait on each other's gradients for ever.
        errors.append(("num_processes", "rejection sampling trains in one process"))
    if config.hyperparameters["prompts_per_step"] % processes:
        # Each process takes every N-th prompt of the step's list: N must divide it.
        why = f"must be a multiple of num_processes ({processes})"
        errors.append(("hyperparameters.prompts_per_step", why))
    backend = (config.hyperparameters.get("sampling") or {}).get("backend")
    if config.strategy == "fsdp" and backend == "vllm":
        # vLLM generates from its own full copy of the weights, synced from the policy after
        # each update; an FSDP rank holds only its shard, so the engine would have to swap in
        # another backend behind the configuration's back.
        why = "vllm cannot generate under strategy fsdp (each rank holds a shard of the weights)"
        errors.append(("hyperparameters.sampling.backend", f"{why}; use ddp, or another backend"))
    extra = [v for v in config.eval.families if v not in config.pool_versions]
    if extra:
        why = (
            f"pool versions {extra} are not in the curriculum; each evaluated family needs "
            "the verifier the curriculum gives it"
        )
        errors.append(("eval.families", why))
    return errors


def stored(data: Mapping[str, Any]) -> ExperimentConfig:
    """An experiment's saved configuration as its frozen object, not checked again: it was
    validated, resolved and canonicalised (``parse``, ``to_dict``) when it was saved."""
    return build(ExperimentConfig, data)


def format_of(config: Mapping[str, Any]) -> PromptFormat:
    """The prompt format of a stored configuration (raw when it has none)."""
    data = config.get("prompt_format")
    return RAW_FORMAT if data is None else build(PromptFormat, data)


def canonical(data: Any) -> dict[str, Any]:
    return parse(data).to_dict()


def config_hash(config: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _hyperparameters(
    algorithm: str, data: dict[str, Any], errors: list[tuple[str, str]]
) -> dict[str, Any] | None:
    """The engine config of ``algorithm`` from ``data``, resolved: its fields' types and ranges
    checked from the config's own metadata, then the engine's checks across fields."""
    where = "hyperparameters"
    cls = CONFIGS[algorithm]
    known = {f.name for f in dataclasses.fields(cls)} - set(RESERVED_HYPERPARAMETERS)
    before = len(errors)
    errors += [(f"{where}.{k}", why) for k, why in RESERVED_HYPERPARAMETERS.items() if k in data]
    unknown = sorted(set(data) - known - set(RESERVED_HYPERPARAMETERS))
    errors += [(f"{where}.{k}", f"unknown for {algorithm}") for k in unknown]
    _load(cls, {k: v for k, v in data.items() if k in known}, where, errors)
    if len(errors) > before:
        return None
    try:
        engine = config_from_dict({**data, "algorithm": algorithm})
    except ValueError as exc:
        errors += _engine_errors(str(exc), where)
        return None
    resolved = json.loads(json.dumps(engine.to_dict()))
    return {k: v for k, v in resolved.items() if k not in RESERVED_HYPERPARAMETERS}


def _engine_errors(message: str, where: str) -> list[tuple[str, str]]:
    """The engine's ``"field: reason"`` (``"a, b: reason"`` for several) as field errors."""
    names, _, reason = message.partition(": ")
    if not reason:
        return [(where, message)]
    return [(f"{where}.{name.strip()}", reason) for name in names.split(",")]


def parse_budget(data: Any) -> BudgetSpec:
    """A budget on its own (a resume may raise a run's); ConfigError names its fields."""
    try:
        return load(BudgetSpec, data, "budget")
    except Problems as exc:
        raise ConfigError(exc.errors) from exc


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# --- differences ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    path: str
    old: Any
    new: Any


def diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    """Every leaf that differs between two configurations, by path (``a.b[2].c``).

    Lists of objects are compared item by item; lists of plain values are leaves. A key
    present on one side only has None on the other.
    """
    return list(_diff(a, b, ""))


def _diff(a: Any, b: Any, path: str) -> Iterator[Change]:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in sorted(set(a) | set(b)):
            yield from _diff(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
    elif _is_object_list(a) and _is_object_list(b):
        for i in range(max(len(a), len(b))):
            left, right = a[i] if i < len(a) else None, b[i] if i < len(b) else None
            yield from _diff(left, right, f"{path}[{i}]")
    elif a != b or (type(a) is not type(b) and not (_is_number(a) and _is_number(b))):
        yield Change(path, a, b)  # True and 1 are equal in Python, not in a configuration


def leaves(config: Mapping[str, Any]) -> dict[str, Any]:
    """Every leaf of a configuration by path, split as ``diff`` splits it."""
    out: dict[str, Any] = {}
    _leaves(config, "", out)
    return out


def _leaves(value: Any, path: str, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping):
        for key in sorted(value):
            _leaves(value[key], f"{path}.{key}" if path else str(key), out)
    elif _is_object_list(value):
        for i, item in enumerate(value):
            _leaves(item, f"{path}[{i}]", out)
    else:
        out[path] = value


def _is_object_list(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(v, Mapping) for v in value)


def merge(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` laid over ``base``: objects merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def carried_hyperparameters(
    old_algorithm: str, old: Mapping[str, Any], new_algorithm: str
) -> dict[str, Any]:
    """What a change of algorithm keeps: the deliberate choices (values that differ from the
    old algorithm's defaults) that the new algorithm also has. Its other fields take the new
    algorithm's defaults, so an RLOO clone of a GRPO experiment gets RLOO's estimator."""
    if old_algorithm not in CONFIGS or new_algorithm not in CONFIGS:
        return {}
    defaults = json.loads(json.dumps(CONFIGS[old_algorithm]().to_dict()))
    known = {f.name for f in dataclasses.fields(CONFIGS[new_algorithm])}
    return {
        k: v
        for k, v in old.items()
        if k in known and k not in RESERVED_HYPERPARAMETERS and defaults.get(k) != v
    }
