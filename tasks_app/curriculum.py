"""Curricula: per-family difficulty distributions, family mixture weights, and a dynamic policy.

Pure Python: no Django import. The policy keeps each family's rolling success rate inside a
target band ("slightly above current capability"): when a family succeeds too often, a share
of its sampling mass moves one level harder; too rarely, one level easier. A floor keeps
every level sampled a little, so none starves and a shift can always be noticed. Its state is
JSON-able, so a resumed run continues exactly where it left.

``simulate`` runs the policy against a ``SyntheticLearner`` for the preview chart.

A running curriculum can be changed (``Curriculum.apply``): its families' distributions,
mixture weights and target band, checked by ``change_problems`` with the config's own rules.
The changed config is part of the state, so a resumed run keeps the change.

A saved curriculum (``SavedCurriculum``) names its families by pinned pool version
(``PinnedFamily``); the service resolves each to a ``FamilyCurriculum`` by the version's family.
These dataclasses are the one definition of the config: what each field accepts is in its
metadata (plain data, under ``training.field_spec``'s keys), the API checks JSON against them
and generates its serializers from them.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Generic, TypeVar


class ConfigError(ValueError):
    """Every problem of a config, each as (field path, reason); paths are relative to the
    config (``band``, ``families[2].initial``), so an editor can show each beside its field."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))
        self.errors = errors


@dataclass(frozen=True)
class FamilyCurriculum:
    name: str
    """Family (or family kind) name as the sampler knows it."""
    levels: list[int]
    """Difficulty levels that may be sampled, ascending."""
    weight: float = 1.0
    """Mixture weight: the share of each batch drawn from this family, before normalising."""
    initial: list[float] | None = None
    """Starting distribution over ``levels``, one share per level; default: all mass on the
    easiest level."""


MAX_FAMILIES = 256
"""Families in one saved curriculum; each pins a pool version that is looked up and checked."""
ID = (1, 2**63 - 1, False, False)
"""A database id's range, as plain data (see ``_knob``)."""


@dataclass(frozen=True)
class PinnedFamily:
    """A family of a curriculum, named by the pool version it samples from."""

    version: int = field(
        metadata={"range": ID, "message": "must be the id of a pool version of your team"}
    )
    """Id of the pinned pool version; only its train split is ever sampled."""
    weight: float = field(default=1.0, metadata={"range": (0.0, 1e6, False, False), "cast": float})
    """Mixture weight: the share of each batch drawn from this family, before normalising."""
    levels: list[int] | None = None
    """Difficulty levels that may be sampled, ascending; default: every level the version has
    train tasks at."""
    initial: list[float] | None = None
    """Starting distribution over ``levels``, one share per level; default: all mass on the
    easiest level."""

    def named(self, name: str, train_levels: list[int]) -> FamilyCurriculum:
        """The policy's family: ``name`` (the version's family), levels defaulted."""
        levels = self.levels or train_levels
        return FamilyCurriculum(name, levels, weight=self.weight, initial=self.initial)


Fam = TypeVar("Fam")


def _ordered_band(band: tuple[float, float]) -> str | None:
    return None if band[0] < band[1] else "must be [low, high] with 0 <= low < high <= 1"


def _knob(
    default: Any,
    low: float,
    high: float,
    *,
    low_open: bool = False,
    high_open: bool = False,
    **more: Any,
) -> Any:
    """A policy field with what it accepts in its metadata, under the keys the engine's
    configs use (``training.fields.RANGE``, ``training.field_spec``), as plain data: this
    module runs without the engine."""
    return field(default=default, metadata={"range": (low, high, low_open, high_open), **more})


@dataclass(frozen=True)
class CurriculumPolicy(Generic[Fam]):
    """The families a curriculum mixes and the policy knobs, each defined here once: the
    policy's ``CurriculumConfig`` and an experiment's curriculum differ only in how they name
    a family."""

    families: list[Fam]
    """The families each batch mixes, in order."""
    band: tuple[float, float] = _knob(
        (0.3, 0.7),
        0.0,
        1.0,
        check=_ordered_band,
        message="must be [low, high] with 0 <= low < high <= 1",
    )
    """Target band (low, high) for each family's rolling success rate."""
    floor: float = _knob(0.05, 0.0, 1.0, high_open=True, cast=float)
    """Least probability of any level, so none starves."""
    window: int = _knob(64, 1, 100_000)
    """Task outcomes (not steps) in the rolling success rate; after each adjustment the policy
    waits for this many fresh outcomes before it acts again."""
    step: float = _knob(0.2, 0.0, 1.0, low_open=True)
    """Share of a family's mass moved one level per adjustment."""
    dynamic: bool = True
    """False keeps the initial distributions fixed (a static curriculum)."""


@dataclass(frozen=True)
class SavedCurriculum(CurriculumPolicy[PinnedFamily]):
    """The families a curriculum mixes and the policy that moves their difficulty."""

    families: list[PinnedFamily] = field(metadata={"items": (1, MAX_FAMILIES)})
    """The pinned pool versions each batch mixes, in order."""

    def stored(self) -> dict[str, Any]:
        """The config as the database keeps it (JSON, every field present)."""
        return {**asdict(self), "band": list(self.band)}


def floor_fits(floor: float, levels: Sequence[int]) -> bool:
    """Whether every one of ``levels`` can get ``floor`` (the floor alone may be fine, but not
    over this many levels)."""
    return floor * len(levels) <= 1.0


@dataclass(frozen=True)
class CurriculumConfig(CurriculumPolicy[FamilyCurriculum]):
    families: list[FamilyCurriculum]
    """The families each batch mixes, in order."""

    def __post_init__(self) -> None:
        low, high = self.band
        problems = []
        if not 0.0 <= low < high <= 1.0:
            problems.append(("band", f"must satisfy 0 <= low < high <= 1, got {list(self.band)}"))
        if not 0.0 <= self.floor < 1.0:
            problems.append(("floor", f"must be in [0, 1), got {self.floor}"))
        if not 0.0 < self.step <= 1.0:
            problems.append(("step", f"must be in (0, 1], got {self.step}"))
        if self.window < 1:
            problems.append(("window", f"must be at least 1, got {self.window}"))
        if not self.families:
            problems.append(("families", "at least one family is needed"))
        for index, fam in enumerate(self.families):
            problems += _family_problems(f"families[{index}]", fam, self.floor)
        if problems:
            raise ConfigError(problems)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CurriculumConfig:
        families = [FamilyCurriculum(**fam) for fam in data["families"]]
        rest = {k: v for k, v in data.items() if k != "families"}
        if "band" in rest:
            rest["band"] = tuple(rest["band"])
        return cls(families=families, **rest)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["band"] = list(self.band)
        return data


def _family_problems(path: str, fam: FamilyCurriculum, floor: float) -> list[tuple[str, str]]:
    problems = []
    if not fam.levels or sorted(set(fam.levels)) != list(fam.levels):
        problems.append((f"{path}.levels", "must be ascending and distinct"))
    if fam.weight < 0:
        problems.append((f"{path}.weight", "must not be negative"))
    if 0 <= floor < 1 and not floor_fits(floor, fam.levels):
        # A cross-field limit: the floor alone is fine, but not over this many levels.
        why = f"{floor} x {len(fam.levels)} levels of {fam.name!r} exceeds 1"
        problems.append(("floor", why))
    initial = fam.initial
    if initial is not None and (
        not initial or len(initial) != len(fam.levels) or min(initial) < 0 or sum(initial) <= 0
    ):
        problems.append((f"{path}.initial", "must give a non-negative share per level"))
    return problems


def with_floor(probs: Sequence[float], floor: float) -> list[float]:
    """Raise every level to at least ``floor``, taking the difference from the mass above it.

    Idempotent: a distribution that already respects the floor comes back unchanged, so
    repeated adjustments do not drift towards the uniform.
    """
    excess = [max(p - floor, 0.0) for p in probs]
    total = sum(excess)
    share = 1.0 - floor * len(probs)
    if total <= 0.0:
        return [1.0 / len(probs)] * len(probs)
    return [floor + share * e / total for e in excess]


def shift(probs: Sequence[float], step: float, harder: bool) -> list[float]:
    """Move ``step`` of each level's mass one level harder (or easier); the ends keep theirs."""
    out = list(probs)
    order = range(len(probs) - 1) if harder else range(len(probs) - 1, 0, -1)
    for i in order:
        moved = probs[i] * step
        out[i] -= moved
        out[i + 1 if harder else i - 1] += moved
    return out


class Curriculum:
    """Samples (family, level) pairs and adapts the distributions from observed outcomes."""

    def __init__(self, config: CurriculumConfig) -> None:
        self.config = config
        self._families = {fam.name: fam for fam in config.families}
        self.distributions = {fam.name: self._initial(fam) for fam in config.families}
        # Two views of the same outcomes: `_recent` (the last `window`, whatever distribution
        # they were drawn from) is the rolling rate a person reads; `_outcomes` holds only those
        # drawn since the last adjustment, so the policy never acts on a stale distribution.
        self._recent: dict[str, deque[int]] = {
            fam.name: deque(maxlen=config.window) for fam in config.families
        }
        # Successes among `_recent`, kept as outcomes come and go: the rate is read for every
        # family at every step of a preview, and summing a large window each time was quadratic.
        self._recent_passed = {fam.name: 0 for fam in config.families}
        self._outcomes: dict[str, deque[int]] = {
            fam.name: deque(maxlen=config.window) for fam in config.families
        }
        self.adjustments = {fam.name: 0 for fam in config.families}

    def apply(self, change: Mapping[str, Any]) -> None:
        """Change the band, mixture weights or distributions now (see ``change_problems``).

        A new distribution replaces the family's current one (floor applied) and the policy
        waits for a window of outcomes drawn from it before it adjusts it again.
        """
        problems = change_problems(self.config, change)
        if problems:
            raise ConfigError(problems)
        self._set_config(changed_config(self.config, change))
        for name, fam in change.get("families", {}).items():
            if "distribution" in fam:
                self.distributions[name] = with_floor(fam["distribution"], self.config.floor)
                self._outcomes[name].clear()

    def _set_config(self, config: CurriculumConfig) -> None:
        self.config = config
        self._families = {fam.name: fam for fam in config.families}

    def _initial(self, fam: FamilyCurriculum) -> list[float]:
        start = fam.initial or [1.0] + [0.0] * (len(fam.levels) - 1)
        return with_floor(start, self.config.floor)

    def distribution(self, family: str) -> dict[int, float]:
        return dict(zip(self._families[family].levels, self.distributions[family], strict=True))

    def success_rate(self, family: str) -> float | None:
        """The success rate over the family's last ``window`` outcomes."""
        recent = self._recent[family]
        return self._recent_passed[family] / len(recent) if recent else None

    def sample(self, n: int, rng: random.Random) -> list[tuple[str, int]]:
        """``n`` (family, level) pairs: families by mixture weight, then levels by distribution."""
        names = [fam.name for fam in self.config.families]
        weights = [fam.weight for fam in self.config.families]
        families = rng.choices(names, weights=weights, k=n)
        return [
            (name, rng.choices(self._families[name].levels, self.distributions[name])[0])
            for name in families
        ]

    def observe(self, family: str, level: int, success: bool) -> None:
        """Record one graded outcome; adjusts the family's distribution once its window fills."""
        outcomes = self._outcomes[family]
        outcomes.append(1 if success else 0)
        recent = self._recent[family]
        if len(recent) == recent.maxlen:
            self._recent_passed[family] -= recent[0]  # about to fall out of the window
        recent.append(1 if success else 0)
        self._recent_passed[family] += 1 if success else 0
        if self.config.dynamic and len(outcomes) == self.config.window:
            self._adjust(family)

    def observe_many(self, outcomes: Iterable[tuple[str, int, bool]]) -> None:
        for family, level, success in outcomes:
            self.observe(family, level, success)

    def _adjust(self, family: str) -> None:
        rate = _rate(self._outcomes[family]) or 0.0
        low, high = self.config.band
        if low <= rate <= high:
            return
        moved = shift(self.distributions[family], self.config.step, harder=rate > high)
        self.distributions[family] = with_floor(moved, self.config.floor)
        self.adjustments[family] += 1
        # Outcomes drawn from the old distribution no longer describe the new one.
        self._outcomes[family].clear()

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume: JSON-able."""
        return {
            "config": self.config.to_dict(),
            "distributions": {k: list(v) for k, v in self.distributions.items()},
            "outcomes": {k: list(v) for k, v in self._outcomes.items()},
            "recent": {k: list(v) for k, v in self._recent.items()},
            "adjustments": dict(self.adjustments),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        if "config" in state:  # the config as changed while the run trained
            self._set_config(CurriculumConfig.from_dict(state["config"]))
        for name in self.distributions:
            self.distributions[name] = [float(p) for p in state["distributions"][name]]
            self._outcomes[name].clear()
            self._outcomes[name].extend(int(o) for o in state["outcomes"][name])
            self._recent[name].clear()
            # States saved before the two views existed held only the fresh outcomes.
            recent = state.get("recent", state["outcomes"])[name]
            self._recent[name].extend(int(o) for o in recent)
            self._recent_passed[name] = sum(self._recent[name])
            self.adjustments[name] = int(state["adjustments"][name])

    @classmethod
    def from_state_dict(cls, state: Mapping[str, Any]) -> Curriculum:
        curriculum = cls(CurriculumConfig.from_dict(state["config"]))
        curriculum.load_state_dict(state)
        return curriculum


def _rate(outcomes: deque[int]) -> float | None:
    return sum(outcomes) / len(outcomes) if outcomes else None


CHANGE_KEYS = ("band", "families")
FAMILY_CHANGE_KEYS = ("weight", "distribution")
MAX_WEIGHT = 1e6


def change_problems(config: CurriculumConfig, change: Any) -> list[tuple[str, str]]:
    """Why ``change`` cannot apply to a curriculum configured as ``config``; empty if it can.

    A change is ``{"band": [low, high], "families": {name: {"weight": w, "distribution":
    [share per level]}}}``, every part optional but one needed; the rules are the config's
    (a distribution is like ``initial``), and afterwards some family must keep a weight.
    """
    if not isinstance(change, Mapping):
        return [("", "must be an object")]
    problems = [(str(k), "unknown field") for k in change if k not in CHANGE_KEYS]
    if not any(k in change for k in CHANGE_KEYS):
        problems.append(("", f"change at least one of {', '.join(CHANGE_KEYS)}"))
    if "band" in change and not _good_band(change["band"]):
        problems.append(("band", "must be [low, high] with 0 <= low < high <= 1"))
    families = change.get("families", {})
    if not isinstance(families, Mapping) or ("families" in change and not families):
        return [*problems, ("families", "must map family names to their changes")]
    by_name = {fam.name: fam for fam in config.families}
    for name, fam_change in families.items():
        where = f"families.{name}"
        if name not in by_name:
            problems.append((where, f"not a family of this curriculum; one of {sorted(by_name)}"))
        else:
            problems += _family_change_problems(where, by_name[name], fam_change)
    if not problems:
        weights = [fam.weight for fam in changed_config(config, change).families]
        if not any(w > 0 for w in weights):
            problems.append(("families", "at least one family needs a positive weight"))
    return problems


def _family_change_problems(
    where: str, fam: FamilyCurriculum, change: Any
) -> list[tuple[str, str]]:
    if not isinstance(change, Mapping) or not change:
        return [(where, f"must change one of {', '.join(FAMILY_CHANGE_KEYS)}")]
    problems = [(f"{where}.{k}", "unknown field") for k in change if k not in FAMILY_CHANGE_KEYS]
    if "weight" in change and not (
        _is_number(change["weight"]) and 0 <= change["weight"] <= MAX_WEIGHT
    ):
        problems.append((f"{where}.weight", f"must be a number from 0 to {MAX_WEIGHT:g}"))
    shares = change.get("distribution")
    if "distribution" in change and not (
        isinstance(shares, list)
        and len(shares) == len(fam.levels)
        and all(_is_number(v) and v >= 0 for v in shares)
        and sum(shares) > 0
    ):
        why = f"must give a non-negative share for each of the levels {fam.levels}, not all zero"
        problems.append((f"{where}.distribution", why))
    return problems


def changed_config(config: CurriculumConfig, change: Mapping[str, Any]) -> CurriculumConfig:
    """``config`` with the change's band and weights (distributions live in the state)."""
    families = change.get("families", {})
    return replace(
        config,
        band=tuple(change["band"]) if "band" in change else config.band,
        families=[
            replace(fam, weight=float(families[fam.name]["weight"]))
            if "weight" in families.get(fam.name, {})
            else fam
            for fam in config.families
        ],
    )


def _good_band(band: Any) -> bool:
    return (
        isinstance(band, list)
        and len(band) == 2
        and all(_is_number(b) for b in band)
        and 0 <= band[0] < band[1] <= 1
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


T = TypeVar("T")


class TaskPicker(Generic[T]):
    """Picks a concrete *train* task for a sampled (family, level); held-out never enters.

    When a level has no train task, the nearest level that has one is used (the easier on a
    tie), so a sparse pool still yields a batch.
    """

    def __init__(self, entries: Iterable[tuple[str, int, str, T]]) -> None:
        """``entries``: (family, level, split, task) for every task of the pinned versions."""
        self._tasks: dict[str, dict[int, list[T]]] = {}
        for family, level, split, task in entries:
            if split == "train":
                self._tasks.setdefault(family, {}).setdefault(level, []).append(task)

    def levels(self, family: str) -> list[int]:
        return sorted(self._tasks.get(family, {}))

    def pick(self, family: str, level: int, rng: random.Random) -> T:
        by_level = self._tasks.get(family)
        if not by_level:
            raise LookupError(f"family {family!r} has no train tasks")
        nearest = min(by_level, key=lambda lv: (abs(lv - level), lv))
        return rng.choice(by_level[nearest])

    def batch(self, pairs: Iterable[tuple[str, int]], rng: random.Random) -> list[T]:
        return [self.pick(family, level, rng) for family, level in pairs]


@dataclass
class SyntheticLearner:
    """A stand-in model for the preview: P(success) = sigmoid(slope * (ability - level)).

    Ability grows with practice near its frontier (tasks it solves about half the time
    teach the most) and hardly at all on tasks far too easy or far too hard.
    """

    abilities: dict[str, float] = field(default_factory=dict)
    slope: float = 2.0
    learning_rate: float = 0.001
    default_ability: float = 1.0

    def success_probability(self, family: str, level: int) -> float:
        ability = self.abilities.get(family, self.default_ability)
        return 1.0 / (1.0 + math.exp(-self.slope * (ability - level)))

    def attempt(self, family: str, level: int, rng: random.Random) -> bool:
        p = self.success_probability(family, level)
        ability = self.abilities.get(family, self.default_ability)
        self.abilities[family] = ability + self.learning_rate * 4.0 * p * (1.0 - p)
        return rng.random() < p


def simulate(
    config: CurriculumConfig,
    learner: SyntheticLearner,
    steps: int,
    batch: int,
    seed: int = 0,
    state: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the policy against ``learner``; the trace has one entry per step for the chart.

    Trace: ``{"band", "floor", "levels": {family: [...]}, "steps": [{"step", "distribution":
    {family: [p per level]}, "success_rate": {family: batch success rate}, "rolling_success":
    {family: rate or None}, "ability": {family: float}}], "state": curriculum state}``.
    Pass a previous trace's ``state`` to continue it.
    """
    curriculum = Curriculum.from_state_dict(state) if state else Curriculum(config)
    rng = random.Random(seed)
    if state and "rng" in state:
        rng.setstate(_rng_state(state["rng"]))
    names = [fam.name for fam in config.families]
    trace: list[dict[str, Any]] = []
    start = int(state.get("step", 0)) if state else 0
    for step in range(start, start + steps):
        pairs = curriculum.sample(batch, rng)
        results = [(fam, lv, learner.attempt(fam, lv, rng)) for fam, lv in pairs]
        curriculum.observe_many(results)
        trace.append(_trace_step(step, curriculum, learner, names, results))
    final = {**curriculum.state_dict(), "rng": _rng_json(rng), "step": start + steps}
    return {
        "band": list(config.band),
        "floor": config.floor,
        "levels": {fam.name: list(fam.levels) for fam in config.families},
        "steps": trace,
        "state": final,
    }


def _trace_step(
    step: int,
    curriculum: Curriculum,
    learner: SyntheticLearner,
    names: list[str],
    results: list[tuple[str, int, bool]],
) -> dict[str, Any]:
    # One pass over the batch, not one per family: a preview's cost stays steps x batch.
    tried, passed = dict.fromkeys(names, 0), dict.fromkeys(names, 0)
    for family, _, ok in results:
        tried[family] += 1
        passed[family] += ok
    batch_rate = {n: passed[n] / tried[n] if tried[n] else None for n in names}
    return {
        "step": step,
        "distribution": {n: [round(p, 6) for p in curriculum.distributions[n]] for n in names},
        "success_rate": batch_rate,
        "rolling_success": {n: curriculum.success_rate(n) for n in names},
        "ability": {n: round(learner.abilities.get(n, learner.default_ability), 6) for n in names},
    }


def _rng_json(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_state(data: Sequence[Any]) -> tuple[Any, ...]:
    return (data[0], tuple(data[1]), data[2])
