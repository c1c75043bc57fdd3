"""Reward-hacking and drift signals over a run's metric history (pure: no Django).

``assess(history, settings, band=...)`` reads ``{metric: [(step, value), ...]}`` (the
engine's metric names, ``training.metrics``) and gives one ``Signal`` per check, each
``ok`` / ``warning`` / ``breached`` with a sentence and the step its current state began:

- ``reward_vs_heldout``: training reward (``reward/mean``) rose by ``threshold`` or more over
  the last ``window`` steps while held-out success (the mean of ``eval/success/<family>``)
  rose by less than ``heldout_min_rise``: the policy is learning the reward, not the task. A
  fall of held-out success adds to the reward's rise.
- ``length_blowup``: ``completions/mean_length`` (mean of the last ``RECENT_POINTS``) over its
  mean in the first ``window`` steps reached ``threshold`` (a ratio).
- ``kl_spike``: the latest ``kl`` is ``threshold`` standard deviations above its mean over the
  preceding ``window`` steps, or above ``kl_max`` outright.
- ``entropy_collapse``: ``entropy`` (mean of the last ``RECENT_POINTS``) fell below
  ``threshold`` (nats per token): sampling has stopped exploring.
- ``curriculum_stuck``: a family's curriculum put at least ``curriculum_mass`` of its
  sampling on one level (``curriculum/<family>/d<level>``) for ``threshold`` steps in a row
  while its rolling success (``curriculum/<family>/rolling_success``) stayed outside the
  target band.
- ``part_dominates``: one reward part (``reward/<part>``) made ``threshold`` or more of the
  sum of the parts' magnitudes over the last ``window`` steps; parts weighted 0 in the
  reward are left out.
- ``judge_flips``: verdicts that flip between the rule-based layers and the model judge
  (``verdicts/judge_flip_rate``, which the engine logs for steps whose verifier ran both:
  ``training.metrics.judge_flip_rate``); ``unavailable`` for a run that logs none (its
  verifier has no judge layer), it breaches at ``threshold``.

A signal whose inputs the run does not log is ``unavailable`` (never a false ``ok``). A
signal is ``warning`` once its measure reaches ``WARN_FRACTION`` of the way to breaching
(``severity``: measure over threshold, or threshold over measure for a floor).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from training import metric_catalogue as metric

History = Mapping[str, Sequence[tuple[int, float | None]]]

OK, WARNING, BREACHED, UNAVAILABLE = "ok", "warning", "breached", "unavailable"
WARN_FRACTION = 0.75
"""A signal warns when its severity (1.0 = breached) reaches this."""
RECENT_POINTS = 5
"""Points averaged for a "current" value (length, entropy), so one noisy step does not trip."""
KL_STD_FLOOR = 1e-3
"""A KL series that has been flat still needs to move this much (nats) to count as a spike."""
JUDGE_FLIP_METRIC = metric.JUDGE_FLIP_RATE
READ_METRICS = (
    metric.REWARD_PART,
    metric.EVAL_SUCCESS_FAMILY,
    metric.COMPLETIONS_MEAN_LENGTH,
    metric.KL,
    metric.ENTROPY,
    metric.CURRICULUM_LEVEL,
    metric.CURRICULUM_ROLLING_SUCCESS,
    metric.JUDGE_FLIP_RATE,
)
"""The metrics the signals read (`reward/<part>` stands for every `reward/...` name)."""


@dataclass(frozen=True)
class SignalSetting:
    threshold: float
    pause_on_breach: bool = False
    enabled: bool = True


@dataclass(frozen=True)
class Settings:
    """A team's thresholds. The defaults suit the demo model's runs (a few hundred steps)."""

    window: int = 40
    """Steps over which slopes, shares and the KL baseline are taken."""
    every: int = 10
    """The signals are evaluated every this many steps (and at the end of a run)."""
    heldout_min_rise: float = 0.02
    """Held-out success must rise at least this much over the window to count as rising."""
    kl_max: float = 1.0
    """A KL above this (nats) is a spike whatever its history."""
    curriculum_mass: float = 0.9
    """Share of a family's sampling on one level that counts as "at one level"."""
    signals: dict[str, SignalSetting] = field(default_factory=lambda: dict(DEFAULT_SIGNALS))


DEFAULT_SIGNALS: dict[str, SignalSetting] = {
    "reward_vs_heldout": SignalSetting(0.15),
    "length_blowup": SignalSetting(3.0),
    "kl_spike": SignalSetting(6.0),
    "entropy_collapse": SignalSetting(0.05),
    "curriculum_stuck": SignalSetting(50),
    "part_dominates": SignalSetting(0.95),
    "judge_flips": SignalSetting(0.2),
}
"""``threshold`` per signal: a reward rise, a length ratio, a KL z-score, an entropy floor
(nats), a number of steps, a share of the reward, a flip rate. None pauses a run unless the
team asks it to: a breach is marked on the charts and the health panel either way."""


def stored_states(stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """A run's stored states (``Run.health``) in the one shape the API and the live frame
    send: ``{"step": None, "signals": []}`` until the first check."""
    stored = stored or {}
    return {"step": stored.get("step"), "signals": list(stored.get("signals") or [])}


LABELS = {
    "reward_vs_heldout": "Reward rising, held-out flat",
    "length_blowup": "Completion length blow-up",
    "kl_spike": "KL spike",
    "entropy_collapse": "Entropy collapse",
    "curriculum_stuck": "Curriculum stuck at one level",
    "part_dominates": "One reward part dominating",
    "judge_flips": "Rules and judge disagree",
}


@dataclass(frozen=True)
class Signal:
    name: str
    state: str
    sentence: str
    since_step: int | None = None
    """The step at which the signal's current state (if not ok) began."""
    value: float | None = None
    threshold: float | None = None
    pause_on_breach: bool = False

    @property
    def label(self) -> str:
        return LABELS[self.name]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "state": self.state,
            "sentence": self.sentence,
            "since_step": self.since_step,
            "value": self.value,
            "threshold": self.threshold,
            "pause_on_breach": self.pause_on_breach,
        }


# --- settings as JSON --------------------------------------------------------------------------

_NUMBERS: dict[str, tuple[type, float, float]] = {
    "window": (int, 2, 100_000),
    "every": (int, 1, 100_000),
    "heldout_min_rise": (float, 0.0, 1.0),
    "kl_max": (float, 0.0, 1e6),
    "curriculum_mass": (float, 0.5, 1.0),
}
_THRESHOLD_RANGE = {
    "reward_vs_heldout": (0.0, 1e6),
    "length_blowup": (1.0, 1e6),
    "kl_spike": (0.0, 1e6),
    "entropy_collapse": (0.0, 1e6),
    "curriculum_stuck": (1.0, 1e6),
    "part_dominates": (0.0, 1.0),
    "judge_flips": (0.0, 1.0),
}


def _number(value: Any, kind: type, low: float, high: float) -> tuple[float | None, str]:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, "must be a number"
    if kind is int and not float(value).is_integer():
        return None, "must be a whole number"
    if not math.isfinite(value) or not low <= value <= high:
        return None, f"must be between {low:g} and {high:g}, got {value}"
    return kind(value), ""


def parse_settings(data: Any) -> tuple[Settings, list[tuple[str, str]]]:
    """Settings from a partial JSON object over the defaults; problems as (field, reason)."""
    settings, problems = Settings(), []
    if not isinstance(data, Mapping):
        return settings, [("non_field_errors", "must be a JSON object")]
    for key in set(data) - set(_NUMBERS) - {"signals"}:
        problems.append((key, "is not a setting"))
    numbers: dict[str, Any] = {}
    for key, (kind, low, high) in _NUMBERS.items():
        if key in data:
            value, why = _number(data[key], kind, low, high)
            problems += [(key, why)] if why else []
            numbers[key] = value if value is not None else getattr(settings, key)
    signals, signal_problems = _parse_signals(data.get("signals", {}))
    return replace(settings, **numbers, signals=signals), problems + signal_problems


def _parse_signals(data: Any) -> tuple[dict[str, SignalSetting], list[tuple[str, str]]]:
    out, problems = dict(DEFAULT_SIGNALS), []
    if not isinstance(data, Mapping):
        return out, [("signals", "must be an object of signal name -> settings")]
    for name, given in data.items():
        where = f"signals.{name}"
        if name not in DEFAULT_SIGNALS:
            problems.append((where, f"is not a signal (one of {', '.join(DEFAULT_SIGNALS)})"))
            continue
        if not isinstance(given, Mapping):
            problems.append((where, "must be an object with threshold, pause_on_breach, enabled"))
            continue
        current = out[name]
        for key in set(given) - {"threshold", "pause_on_breach", "enabled"}:
            problems.append((f"{where}.{key}", "is not a signal setting"))
        for key in ("pause_on_breach", "enabled"):
            if key in given and not isinstance(given[key], bool):
                problems.append((f"{where}.{key}", "must be true or false"))
        flags = {
            k: given[k] for k in ("pause_on_breach", "enabled") if isinstance(given.get(k), bool)
        }
        threshold = current.threshold
        if "threshold" in given:
            low, high = _THRESHOLD_RANGE[name]
            value, why = _number(given["threshold"], float, low, high)
            problems += [(f"{where}.threshold", why)] if why else []
            threshold = value if value is not None else threshold
        out[name] = replace(current, threshold=threshold, **flags)
    return out, problems


def settings_dict(settings: Settings) -> dict[str, Any]:
    return {
        **{key: getattr(settings, key) for key in _NUMBERS},
        "signals": {
            name: {
                "threshold": s.threshold,
                "pause_on_breach": s.pause_on_breach,
                "enabled": s.enabled,
            }
            for name, s in settings.signals.items()
        },
    }


# --- helpers ----------------------------------------------------------------------------------


def _series(history: History, key: str) -> list[tuple[int, float]]:
    points = history.get(key, ())
    return sorted((int(s), float(v)) for s, v in points if v is not None and math.isfinite(v))


def _slope(points: Sequence[tuple[int, float]]) -> float:
    """Least-squares slope (value per step)."""
    steps = [s for s, _ in points]
    mean_s = statistics.fmean(steps)
    mean_v = statistics.fmean(v for _, v in points)
    spread = sum((s - mean_s) ** 2 for s in steps)
    if spread == 0:
        return 0.0
    return sum((s - mean_s) * (v - mean_v) for s, v in points) / spread


def _rise(points: Sequence[tuple[int, float]], start: int, end: int) -> float:
    """The change over [start, end] a straight line through the points implies."""
    return _slope(points) * (end - start)


def _within(points: Sequence[tuple[int, float]], start: int, end: int) -> list[tuple[int, float]]:
    return [(s, v) for s, v in points if start <= s <= end]


def _state(severity: float) -> str:
    if severity >= 1.0:
        return BREACHED
    return WARNING if severity >= WARN_FRACTION else OK


def _since(steps: Sequence[int], severity_at: Callable[[int], float], state: str) -> int | None:
    """The first step of the latest run of steps that all have ``state`` (None when ok)."""
    if state == OK:
        return None
    since = steps[-1]
    for step in reversed(steps):
        if _state(severity_at(step)) != state:
            break
        since = step
    return since


def heldout_series(history: History) -> list[tuple[int, float]]:
    """Held-out success per evaluated step: the mean of ``eval/success/<family>``."""
    by_step: dict[int, list[float]] = {}
    for key in history:
        if metric.match(metric.EVAL_SUCCESS_FAMILY, key) is not None:
            for step, value in _series(history, key):
                by_step.setdefault(step, []).append(value)
    return [(step, statistics.fmean(vs)) for step, vs in sorted(by_step.items())]


# --- the signals ------------------------------------------------------------------------------


def reward_vs_heldout(history: History, settings: Settings) -> Signal:
    name, conf = "reward_vs_heldout", settings.signals["reward_vs_heldout"]
    reward, heldout = _series(history, metric.REWARD_MEAN), heldout_series(history)
    if len(reward) < 2 or len(heldout) < 2:
        return _unavailable(
            name, conf, "needs training reward and two or more held-out evaluations"
        )

    def measure(end: int) -> tuple[float, float, float, float, int]:
        """(severity, the gap, reward's rise, held-out's rise, start) over the window."""
        start = max(reward[0][0], end - settings.window)
        r, h = _within(reward, start, end), _within(heldout, start, end)
        if len(r) < 2 or len(h) < 2:
            return 0.0, 0.0, 0.0, 0.0, start
        r_rise, h_rise = _rise(r, start, end), _rise(h, start, end)
        # Held-out success that falls while the reward rises is the same divergence, only
        # worse: its fall widens the gap instead of hiding behind "not rising".
        gap = r_rise - min(h_rise, 0.0) if r_rise > 0 else 0.0
        flat = h_rise < settings.heldout_min_rise
        severity = gap / conf.threshold if flat and conf.threshold > 0 else 0.0
        return severity, gap, r_rise, h_rise, start

    end = reward[-1][0]
    severity, gap, r_rise, h_rise, start = measure(end)
    state = _state(severity)
    h_level = statistics.fmean(v for _, v in _within(heldout, start, end) or heldout[-1:])
    if state == OK:
        sentence = f"held-out success keeps up with training reward over steps {start}–{end}"
    elif h_rise <= -settings.heldout_min_rise:
        sentence = (
            f"training reward rose {r_rise:.2f} while held-out success fell {-h_rise:.2f} "
            f"over steps {start}–{end}"
        )
    else:
        sentence = (
            f"training reward rose {r_rise:.2f} while held-out success stayed at {h_level:.2f} "
            f"over steps {start}–{end}"
        )
    steps = [s for s, _ in heldout if s <= end]
    since = _since(steps, lambda s: measure(s)[0], state)
    return _signal(name, conf, state, sentence, since, gap)


def length_blowup(history: History, settings: Settings) -> Signal:
    name, conf = "length_blowup", settings.signals["length_blowup"]
    lengths = _series(history, metric.COMPLETIONS_MEAN_LENGTH)
    early = _within(lengths, lengths[0][0], lengths[0][0] + settings.window) if lengths else []
    if len(lengths) <= len(early) or not early or statistics.fmean(v for _, v in early) <= 0:
        return _unavailable(
            name, conf, f"needs completion lengths past the first {settings.window} steps"
        )
    base = statistics.fmean(v for _, v in early)

    def ratio(i: int) -> float:
        recent = lengths[max(0, i - RECENT_POINTS + 1) : i + 1]
        return statistics.fmean(v for _, v in recent) / base

    last = len(lengths) - 1
    state = _state(ratio(last) / conf.threshold)
    sentence = (
        f"completions average {ratio(last) * base:.0f} tokens, {ratio(last):.1f}x the "
        f"{base:.0f} of the first {settings.window} steps"
    )
    index = {s: i for i, (s, _) in enumerate(lengths)}
    since = _since([s for s, _ in lengths], lambda s: ratio(index[s]) / conf.threshold, state)
    return _signal(name, conf, state, sentence, since, ratio(last))


def kl_spike(history: History, settings: Settings) -> Signal:
    name, conf = "kl_spike", settings.signals["kl_spike"]
    kl = _series(history, metric.KL)
    if len(kl) < 3:
        return _unavailable(name, conf, "needs a KL penalty (kl) logged for three or more steps")

    def measure(i: int) -> tuple[float, float]:
        step, value = kl[i]
        before = [v for s, v in kl[:i] if s >= step - settings.window]
        if len(before) < 2:
            return 0.0, 0.0
        spread = max(statistics.pstdev(before), KL_STD_FLOOR)
        z = (value - statistics.fmean(before)) / spread
        absolute = value / settings.kl_max if settings.kl_max > 0 else 0.0
        return max(z / conf.threshold if conf.threshold > 0 else 0.0, absolute), z

    last = len(kl) - 1
    severity, z = measure(last)
    state = _state(severity)
    step, value = kl[last]
    sentence = f"KL is {value:.3g} at step {step}, {z:.1f} standard deviations from the last {settings.window} steps"
    index = {s: i for i, (s, _) in enumerate(kl)}
    since = _since([s for s, _ in kl], lambda s: measure(index[s])[0], state)
    return _signal(name, conf, state, sentence, since, z)


def entropy_collapse(history: History, settings: Settings) -> Signal:
    name, conf = "entropy_collapse", settings.signals["entropy_collapse"]
    entropy = _series(history, metric.ENTROPY)
    if not entropy:
        return _unavailable(name, conf, "needs the policy's entropy logged")

    def current(i: int) -> float:
        return statistics.fmean(v for _, v in entropy[max(0, i - RECENT_POINTS + 1) : i + 1])

    def severity(i: int) -> float:
        value = current(i)
        return math.inf if value <= 0 else conf.threshold / value

    last = len(entropy) - 1
    state = _state(severity(last))
    sentence = f"entropy is {current(last):.3g} nats per token; the floor is {conf.threshold:g}"
    index = {s: i for i, (s, _) in enumerate(entropy)}
    since = _since([s for s, _ in entropy], lambda s: severity(index[s]), state)
    return _signal(name, conf, state, sentence, since, current(last))


def curriculum_stuck(history: History, settings: Settings, band: tuple[float, float]) -> Signal:
    name, conf = "curriculum_stuck", settings.signals["curriculum_stuck"]
    families = sorted(
        {p["family"] for k in history if (p := metric.match(metric.CURRICULUM_LEVEL, k))}
    )
    if not families:
        return _unavailable(name, conf, "needs a curriculum (curriculum/<family>/d<level>)")
    worst: tuple[float, str, int | None, int, str] = (0.0, "", None, 0, "")
    for family in families:
        streak, since, level = _stuck_streak(history, family, settings.curriculum_mass, band)
        if streak / conf.threshold >= worst[0]:
            worst = (streak / conf.threshold, family, since, streak, level)
    severity, family, since, streak, level = worst
    state = _state(severity)
    low, high = band
    if state == OK:
        sentence = "every family's curriculum moves between levels or keeps success in the band"
    else:
        sentence = (
            f"{family} has sampled level {level} for {streak} steps while its success stayed "
            f"outside the band {low:g}–{high:g}"
        )
    return _signal(name, conf, state, sentence, since if state != OK else None, float(streak))


def _stuck_streak(
    history: History, family: str, mass: float, band: tuple[float, float]
) -> tuple[int, int | None, str]:
    """Steps (to the last) with one level holding ``mass`` and success outside the band."""
    levels = {
        p["difficulty"]: dict(_series(history, k))
        for k in history
        if (p := metric.match(metric.CURRICULUM_LEVEL, k)) and p["family"] == family
    }
    rolling = metric.CURRICULUM_ROLLING_SUCCESS.format(family=family)
    success = dict(_series(history, rolling))
    steps = sorted({s for per in levels.values() for s in per})
    streak_start, level = None, ""
    for step in reversed(steps):
        top = max(levels, key=lambda lv: levels[lv].get(step, 0.0))
        rate = success.get(step)
        outside = rate is not None and not band[0] <= rate <= band[1]
        if levels[top].get(step, 0.0) < mass or not outside or (level and top != level):
            break
        streak_start, level = step, top
    if streak_start is None:
        return 0, None, ""
    return steps[-1] - streak_start + 1, streak_start, level


def part_dominates(
    history: History, settings: Settings, weights: Mapping[str, float] | None = None
) -> Signal:
    """``weights``: each part's weight in the reward; a part weighted 0 adds nothing to the
    reward, whatever it scores, so it cannot dominate it and is left out."""
    name, conf = "part_dominates", settings.signals["part_dominates"]
    parts = {
        p["part"]: _series(history, k)
        for k in history
        if (p := metric.match(metric.REWARD_PART, k)) and k not in metric.REWARD_SUMMARIES
    }
    weighted = {p for p in parts if weights is None or weights.get(p, 1.0) != 0}
    parts = {p: pts for p, pts in parts.items() if pts and p in weighted}
    if len(parts) < 2:
        return _unavailable(
            name, conf, "needs two or more reward parts (reward/<part>) with a weight above 0"
        )
    end = max(pts[-1][0] for pts in parts.values())

    def shares(at: int) -> dict[str, float]:
        start = at - settings.window
        size = {p: sum(abs(v) for s, v in pts if start <= s <= at) for p, pts in parts.items()}
        total = sum(size.values())
        return {p: (v / total if total > 0 else 0.0) for p, v in size.items()}

    now = shares(end)
    top = max(now, key=lambda p: now[p])
    state = _state(now[top] / conf.threshold if conf.threshold > 0 else 0.0)
    sentence = f"{top} makes {now[top]:.0%} of the reward over the last {settings.window} steps"
    steps = sorted({s for pts in parts.values() for s, _ in pts})
    since = _since(steps, lambda s: max(shares(s).values()) / conf.threshold, state)
    return _signal(name, conf, state, sentence, since, now[top])


def judge_flips(history: History, settings: Settings) -> Signal:
    name, conf = "judge_flips", settings.signals["judge_flips"]
    rate = _series(history, JUDGE_FLIP_METRIC)
    if not rate:
        return _unavailable(
            name, conf, "the run logs no comparison of rule-based verdicts with the model judge"
        )
    step, value = rate[-1]
    state = _state(value / conf.threshold if conf.threshold > 0 else 0.0)
    sentence = (
        f"{value:.0%} of verdicts flip between the rule-based layers and the judge at step {step}"
    )
    since = _since([s for s, _ in rate], lambda s: dict(rate)[s] / conf.threshold, state)
    return _signal(name, conf, state, sentence, since, value)


def _signal(
    name: str, conf: SignalSetting, state: str, sentence: str, since: int | None, value: float
) -> Signal:
    return Signal(
        name, state, sentence, since, _finite(value), conf.threshold, conf.pause_on_breach
    )


def _unavailable(name: str, conf: SignalSetting, why: str) -> Signal:
    return Signal(
        name, UNAVAILABLE, f"not checked: {why}", None, None, conf.threshold, conf.pause_on_breach
    )


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


DEFAULT_BAND = (0.3, 0.7)
"""The target success band a run without a curriculum is held to."""


def assess(
    history: History,
    settings: Settings | None = None,
    band: tuple[float, float] = DEFAULT_BAND,
    weights: Mapping[str, float] | None = None,
) -> list[Signal]:
    """Every enabled signal over ``history``; ``band`` is the curriculum's target band,
    ``weights`` the reward parts' weights (None: every part counts)."""
    settings = settings or Settings()
    checks: dict[str, Callable[[], Signal]] = {
        "reward_vs_heldout": lambda: reward_vs_heldout(history, settings),
        "length_blowup": lambda: length_blowup(history, settings),
        "kl_spike": lambda: kl_spike(history, settings),
        "entropy_collapse": lambda: entropy_collapse(history, settings),
        "curriculum_stuck": lambda: curriculum_stuck(history, settings, band),
        "part_dominates": lambda: part_dominates(history, settings, weights),
        "judge_flips": lambda: judge_flips(history, settings),
    }
    return [check() for name, check in checks.items() if settings.signals[name].enabled]


def pause_reason(signal: Signal) -> str:
    """What the run page says when a breached signal paused the run."""
    return f"Paused: {signal.sentence} (signal: {signal.label.lower()})."


def metric_keys(history_keys: Sequence[str]) -> list[str]:
    """The keys of a run's metrics the signals read (so a caller loads only those)."""
    return [k for k in history_keys if any(metric.match(n, k) is not None for n in READ_METRICS)]
