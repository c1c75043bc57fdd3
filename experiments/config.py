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
     "budget": {"max_worker_hours": null, "max_cost": null}}

``hyperparameters`` are checked by ``training.config.config_from_dict`` (the engine's own
checks, in one place) and stored resolved, defaults included, so an experiment means the same
thing after a default changes in the code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from experiments.launch import STRATEGIES
from tasks_app.curriculum import CurriculumConfig
from training.config import (
    CONFIGS,
    BaseConfig,
    FieldErrors,
    ModelConfig,
    Range,
    SamplingConfig,
    config_from_dict,
    field_range,
)

TOP_KEYS = {
    "curriculum",
    "model",
    "algorithm",
    "hyperparameters",
    "eval",
    "seed",
    "num_processes",
    "strategy",
    "rollout_groups",
    "budget",
}
CURRICULUM_KEYS = {"families", "band", "floor", "window", "step", "dynamic", "origin"}
FAMILY_KEYS = {"pool_version", "verifier_version", "weight", "levels", "initial"}
EVAL_KEYS = {"every", "families", "max_tasks", "suite"}
BUDGET_KEYS = ("max_worker_hours", "max_cost")
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


class ConfigError(ValueError):
    """Every problem found, each as (field path, reason); paths are relative to the config."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))
        self.errors = errors


@dataclass(frozen=True)
class FamilySpec:
    pool_version: int
    """Id of the pinned task-pool version; its train split is sampled, its held-out split
    is the evaluation set."""
    verifier_version: int
    """Id of the verifier version that judges this family's completions."""
    weight: float = 1.0
    """Mixture weight of the family in each batch."""
    levels: list[int] | None = None
    """Difficulty levels that may be sampled; None until resolved (all the version's levels)."""
    initial: list[float] | None = None
    """Starting distribution over ``levels``; None puts all mass on the easiest."""


@dataclass(frozen=True)
class CurriculumSpec:
    families: list[FamilySpec]
    band: tuple[float, float] = (0.3, 0.7)
    floor: float = 0.05
    window: int = 64
    step: float = 0.2
    dynamic: bool = True
    origin: dict[str, int] | None = None
    """``{"curriculum": id, "revision": n}`` when copied from a saved curriculum."""

    def saved_form(self) -> dict[str, Any]:
        """The curriculum as the curriculum service reads a saved one (pinned by pool version)."""
        return {
            "families": [
                {
                    "version": f.pool_version,
                    "weight": f.weight,
                    "levels": f.levels,
                    "initial": f.initial,
                }
                for f in self.families
            ],
            "band": list(self.band),
            "floor": self.floor,
            "window": self.window,
            "step": self.step,
            "dynamic": self.dynamic,
        }

    def policy(self, names: Mapping[int, str]) -> CurriculumConfig:
        """The pure policy, families named by ``names[pool_version]`` (the family slugs)."""
        return CurriculumConfig.from_dict(
            {
                "families": [
                    {
                        "name": names[fam.pool_version],
                        "levels": fam.levels,
                        "weight": fam.weight,
                        "initial": fam.initial,
                    }
                    for fam in self.families
                ],
                "band": list(self.band),
                "floor": self.floor,
                "window": self.window,
                "step": self.step,
                "dynamic": self.dynamic,
            }
        )


@dataclass(frozen=True)
class EvalSpec:
    every: int = 0
    """Evaluate the held-out sets every this many steps (0 = never during training)."""
    families: list[int] = field(default_factory=list)
    """Pool version ids whose held-out split is evaluated (a subset of the curriculum's)."""
    max_tasks: int = DEFAULT_EVAL_TASKS
    """Held-out tasks evaluated per family, at most."""
    suite: int | None = None
    """Id of an evaluation suite of the team: its families and ``max_tasks`` replace the two
    above (the service fills them in), and a succeeded run's final checkpoint is evaluated on
    it. None: no suite."""


@dataclass(frozen=True)
class BudgetSpec:
    """What one run may use; a run that crosses either limit pauses itself and says why."""

    max_worker_hours: float | None = None
    """Hours its workers may spend on it (times its processes); None: no limit."""
    max_cost: float | None = None
    """Cost it may reach at the queues' rates; None: no limit."""


@dataclass(frozen=True)
class ExperimentConfig:
    curriculum: CurriculumSpec
    model: str
    """A model a worker advertises: a catalogue name or a model directory's name."""
    algorithm: str
    hyperparameters: dict[str, Any]
    """The resolved engine config of ``algorithm`` (defaults included), minus the fields
    set elsewhere (``RESERVED_HYPERPARAMETERS``)."""
    eval: EvalSpec
    seed: int = 0
    num_processes: int = 1
    strategy: str = "ddp"
    """How several processes share the model: ``ddp`` (a replica each), ``fsdp`` or
    ``deepspeed`` (sharded; GPUs only)."""
    rollout_groups: int = DEFAULT_ROLLOUT_GROUPS
    """Groups of completions (with their verdicts) stored per step for the run's page."""
    budget: BudgetSpec = field(default_factory=BudgetSpec)

    def to_dict(self) -> dict[str, Any]:
        """The canonical form: JSON types only, every field present."""
        data = dataclasses.asdict(self)
        data["curriculum"]["band"] = list(self.curriculum.band)
        if self.eval.suite is None:  # configurations without a suite keep their old form
            del data["eval"]["suite"]
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
                "model": {"path": model_path},
            }
        )

    @property
    def pool_versions(self) -> list[int]:
        return [fam.pool_version for fam in self.curriculum.families]


def parse(data: Any) -> ExperimentConfig:
    """Validate ``data`` and return its resolved form; ConfigError names every bad field."""
    errors: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        raise ConfigError([("", "must be an object")])
    errors += [(key, "unknown field") for key in sorted(set(data) - TOP_KEYS)]
    errors += [(key, "this field is required") for key in ("curriculum", "model") if key not in data]
    curriculum = _curriculum(data.get("curriculum"), errors) if "curriculum" in data else None
    model = _model(data.get("model"), errors) if "model" in data else ""
    algorithm = data.get("algorithm", "grpo")
    hyperparameters = _hyperparameters(algorithm, data.get("hyperparameters", {}), errors)
    seed = _whole(data.get("seed", 0), "seed", errors, _engine_range("seed"))
    processes = _int(data.get("num_processes", 1), "num_processes", errors, 1, MAX_PROCESSES)
    strategy = data.get("strategy", "ddp")
    if strategy not in STRATEGIES:
        errors.append(("strategy", f"must be one of {', '.join(STRATEGIES)}"))
    groups = data.get("rollout_groups", DEFAULT_ROLLOUT_GROUPS)
    groups = _int(groups, "rollout_groups", errors, 0, MAX_ROLLOUT_GROUPS)
    versions = [f.pool_version for f in curriculum.families] if curriculum else []
    evaluation = _eval(data.get("eval", {}), versions, errors)
    budget = _budget(data.get("budget", {}), errors)
    if algorithm == "rejection" and processes > 1:
        # Each rank keeps a different number of passing answers, so ranks would run different
        # numbers of update passes and wait on each other's gradients for ever.
        errors.append(("num_processes", "rejection sampling trains in one process"))
    if hyperparameters is not None and hyperparameters["prompts_per_step"] % processes:
        # Each process takes every N-th prompt of the step's list: N must divide it.
        why = f"must be a multiple of num_processes ({processes})"
        errors.append(("hyperparameters.prompts_per_step", why))
    if errors or curriculum is None or hyperparameters is None or evaluation is None:
        raise ConfigError(errors)
    return ExperimentConfig(
        curriculum,
        model,
        algorithm,
        hyperparameters,
        evaluation,
        seed,
        processes,
        strategy,
        groups,
        budget or BudgetSpec(),
    )


def canonical(data: Any) -> dict[str, Any]:
    return parse(data).to_dict()


def config_hash(config: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


# --- the curriculum ------------------------------------------------------------------------


def _curriculum(data: Any, errors: list[tuple[str, str]]) -> CurriculumSpec | None:
    where = "curriculum"
    if not isinstance(data, dict):
        errors.append((where, "must be an object"))
        return None
    before = len(errors)
    errors += [(f"{where}.{k}", "unknown field") for k in sorted(set(data) - CURRICULUM_KEYS)]
    families = _families(data.get("families"), errors)
    band = data.get("band", [0.3, 0.7])
    if not (
        isinstance(band, list)
        and len(band) == 2
        and all(_is_number(b) for b in band)
        and 0 <= band[0] < band[1] <= 1
    ):
        errors.append((f"{where}.band", "must be [low, high] with 0 <= low < high <= 1"))
    floor = _number(data.get("floor", 0.05), f"{where}.floor", errors, 0.0, 0.999)
    window = _int(data.get("window", 64), f"{where}.window", errors, 1, 100_000)
    step = data.get("step", 0.2)
    if not (_is_number(step) and 0 < step <= 1):
        errors.append((f"{where}.step", "must be a number in (0, 1]"))
    dynamic = data.get("dynamic", True)
    if not isinstance(dynamic, bool):
        errors.append((f"{where}.dynamic", "must be true or false"))
    origin = _origin(data.get("origin"), errors)
    if len(errors) > before or families is None:
        return None
    spec = CurriculumSpec(families, (band[0], band[1]), floor, window, step, dynamic, origin)
    _check_policy(spec, errors)
    return spec


def _families(data: Any, errors: list[tuple[str, str]]) -> list[FamilySpec] | None:
    where = "curriculum.families"
    if not isinstance(data, list) or not data:
        errors.append((where, "must be a non-empty list"))
        return None
    if len(data) > MAX_FAMILIES:
        errors.append((where, f"at most {MAX_FAMILIES} families"))
        return None
    families = [_family(f"{where}[{i}]", item, errors) for i, item in enumerate(data)]
    seen: set[int] = set()
    for i, fam in enumerate(families):
        if fam is not None and fam.pool_version in seen:
            errors.append((f"{where}[{i}].pool_version", "pool version appears twice"))
        if fam is not None:
            seen.add(fam.pool_version)
    return None if any(f is None for f in families) else [f for f in families if f]


def _family(where: str, item: Any, errors: list[tuple[str, str]]) -> FamilySpec | None:
    if not isinstance(item, dict):
        errors.append((where, "must be an object"))
        return None
    before = len(errors)
    errors += [(f"{where}.{k}", "unknown field") for k in sorted(set(item) - FAMILY_KEYS)]
    for key in ("pool_version", "verifier_version"):
        if key not in item:
            errors.append((f"{where}.{key}", "this field is required"))
        elif not _is_id(item[key]):
            errors.append((f"{where}.{key}", "must be an id (a positive whole number)"))
    weight = _number(item.get("weight", 1.0), f"{where}.weight", errors, 0.0, 1e6)
    levels = item.get("levels")
    if levels is not None and not (
        isinstance(levels, list)
        and levels
        and all(_is_int(v) for v in levels)
        and sorted(set(levels)) == levels
    ):
        errors.append((f"{where}.levels", "must be ascending, distinct whole numbers"))
    initial = item.get("initial")
    if initial is not None and not _good_initial(initial, levels):
        errors.append(
            (f"{where}.initial", "must give a non-negative share per level, not all zero")
        )
    if len(errors) > before:
        return None
    return FamilySpec(item["pool_version"], item["verifier_version"], weight, levels, initial)


def _good_initial(initial: Any, levels: Any) -> bool:
    if not isinstance(initial, list) or not all(_is_number(v) and v >= 0 for v in initial):
        return False
    same_length = not isinstance(levels, list) or len(levels) == len(initial)
    return same_length and sum(initial) > 0


def _origin(data: Any, errors: list[tuple[str, str]]) -> dict[str, int] | None:
    if data is None:
        return None
    if (
        not isinstance(data, dict)
        or set(data) != {"curriculum", "revision"}
        or not all(_is_id(v) for v in data.values())
    ):
        errors.append(("curriculum.origin", "must be null or {curriculum: id, revision: n}"))
        return None
    return dict(data)


def _check_policy(spec: CurriculumSpec, errors: list[tuple[str, str]]) -> None:
    """What the pure policy checks beyond single fields (the floor against the levels...)."""
    for fam in spec.families:
        if fam.levels is not None and spec.floor * len(fam.levels) > 1:
            why = f"floor {spec.floor} x {len(fam.levels)} levels exceeds 1"
            errors.append(("curriculum.floor", why))
            return
    if all(f.weight == 0 for f in spec.families):
        errors.append(("curriculum.families", "at least one family needs a positive weight"))
        return
    if all(f.levels is not None for f in spec.families):
        try:
            spec.policy({f.pool_version: f"v{f.pool_version}" for f in spec.families})
        except (TypeError, ValueError) as exc:
            # The policy names its fields when it can (``families[0].initial``).
            named = getattr(exc, "errors", None) or [("", str(exc))]
            errors += [(f"curriculum.{path}" if path else "curriculum", why) for path, why in named]


# --- model, algorithm, evaluation ----------------------------------------------------------


def _model(value: Any, errors: list[tuple[str, str]]) -> str:
    if not isinstance(value, str) or not value.strip():
        errors.append(("model", "must be the name of a model a worker offers"))
        return ""
    if len(value) > MAX_MODEL_NAME or any(ord(c) < 32 for c in value):
        errors.append(("model", f"must be a name of at most {MAX_MODEL_NAME} printable characters"))
        return ""
    return value.strip()


def _hyperparameters(
    algorithm: Any, data: Any, errors: list[tuple[str, str]]
) -> dict[str, Any] | None:
    if not isinstance(algorithm, str) or algorithm not in CONFIGS:
        errors.append(("algorithm", f"must be one of {', '.join(sorted(CONFIGS))}"))
        return None
    where = "hyperparameters"
    if not isinstance(data, dict):
        errors.append((where, "must be an object"))
        return None
    before = len(errors)
    errors += [(f"{where}.{k}", why) for k, why in RESERVED_HYPERPARAMETERS.items() if k in data]
    errors += list(_type_errors(CONFIGS[algorithm], data, where))
    if len(errors) > before:
        return None
    try:
        engine = config_from_dict({**data, "algorithm": algorithm})
    except FieldErrors as exc:  # every field outside the range the engine documents for it
        errors += [(f"{where}.{path}", why) for path, why in exc.errors]
        return None
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


def _eval(data: Any, versions: list[int], errors: list[tuple[str, str]]) -> EvalSpec | None:
    where = "eval"
    if not isinstance(data, dict):
        errors.append((where, "must be an object"))
        return None
    before = len(errors)
    errors += [(f"{where}.{k}", "unknown field") for k in sorted(set(data) - EVAL_KEYS)]
    every = _whole(data.get("every", 0), f"{where}.every", errors, _engine_range("eval_every"))
    max_tasks = _int(
        data.get("max_tasks", DEFAULT_EVAL_TASKS), f"{where}.max_tasks", errors, 1, MAX_EVAL_TASKS
    )
    families = data.get("families")
    if families is None:
        families = list(versions)
    elif not isinstance(families, list) or not all(_is_id(v) for v in families):
        errors.append((f"{where}.families", "must be a list of pool version ids"))
    elif versions and (extra := [v for v in families if v not in versions]):
        errors.append(
            (f"{where}.families", f"pool versions {extra} are not in the curriculum; each "
             "evaluated family needs the verifier the curriculum gives it")
        )
    elif len(set(families)) != len(families):
        errors.append((f"{where}.families", "a pool version appears twice"))
    suite = data.get("suite")
    if suite is not None and not _is_id(suite):
        errors.append((f"{where}.suite", "must be the id of an evaluation suite of your team"))
    if len(errors) > before:
        return None
    return EvalSpec(every, list(families), max_tasks, suite)


def parse_budget(data: Any) -> BudgetSpec:
    """A budget on its own (a resume may raise a run's); ConfigError names its fields."""
    errors: list[tuple[str, str]] = []
    budget = _budget(data, errors)
    if budget is None:
        raise ConfigError(errors)
    return budget


def _budget(data: Any, errors: list[tuple[str, str]]) -> BudgetSpec | None:
    if not isinstance(data, dict):
        errors.append(("budget", "must be an object"))
        return None
    before = len(errors)
    errors += [(f"budget.{k}", "unknown field") for k in sorted(set(data) - set(BUDGET_KEYS))]
    for key in BUDGET_KEYS:
        value = data.get(key)
        if value is not None and not (_is_number(value) and 0 < value <= MAX_BUDGET):
            errors.append((f"budget.{key}", "must be null (no limit) or a number above 0"))
    if len(errors) > before:
        return None
    return BudgetSpec(*(None if data.get(k) is None else float(data[k]) for k in BUDGET_KEYS))


# --- types ---------------------------------------------------------------------------------


def _type_errors(cls: type, data: dict[str, Any], where: str) -> Iterator[tuple[str, str]]:
    """JSON values of the wrong type for ``cls``'s fields (the engine would fail obscurely)."""
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    for name, value in data.items():
        if name not in fields or name in RESERVED_HYPERPARAMETERS:
            continue  # unknown names are reported by the engine's own check
        hint = hints[name]
        if hint in (SamplingConfig, ModelConfig):
            yield from _nested_errors(hint, value, f"{where}.{name}")
        elif not _matches(hint, value):
            yield f"{where}.{name}", f"must be {_describe(hint)}"


def _nested_errors(cls: type, value: Any, where: str) -> Iterator[tuple[str, str]]:
    if not isinstance(value, dict):
        yield where, "must be an object"
        return
    known = {f.name for f in dataclasses.fields(cls)}
    for name in sorted(set(value) - known):
        yield f"{where}.{name}", "unknown field"
    yield from _type_errors(cls, {k: v for k, v in value.items() if k in known}, where)


def _matches(hint: Any, value: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(arg, value) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return _is_int(value)
    if hint is float:
        return _is_number(value)
    if hint is str:
        return isinstance(value, str)
    if origin is tuple:
        args = typing.get_args(hint)
        return (
            isinstance(value, list)
            and len(value) == len(args)
            and all(_matches(a, v) for a, v in zip(args, value, strict=True))
        )
    return True


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(arg) for arg in typing.get_args(hint))
    if origin is tuple:
        return f"a list of {len(typing.get_args(hint))} numbers"
    names = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}
    return names.get(hint, "null" if hint is type(None) else str(hint))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: Any) -> bool:
    return _is_int(value) and 0 < value < 2**63


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    )


def _int(value: Any, where: str, errors: list[tuple[str, str]], low: int, high: int) -> int:
    if not _is_int(value) or not low <= value <= high:
        errors.append((where, f"must be a whole number from {low} to {high}"))
        return low
    return int(value)


def _engine_range(name: str) -> Range:
    """The range the engine documents for one of its fields that the configuration sets
    outside ``hyperparameters`` (the seed, the evaluation interval)."""
    bounds = field_range(BaseConfig, name)
    assert bounds is not None, name
    return bounds


def _whole(value: Any, where: str, errors: list[tuple[str, str]], bounds: Range) -> int:
    if not _is_int(value) or not bounds.contains(value):
        errors.append((where, f"must be a whole number {bounds.describe()}"))
        return int(bounds.low)
    return int(value)


def _number(
    value: Any, where: str, errors: list[tuple[str, str]], low: float, high: float
) -> float:
    if not _is_number(value) or not low <= value <= high:
        errors.append((where, f"must be a number from {low} to {high}"))
        return low
    return float(value)


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
