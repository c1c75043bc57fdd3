"""Reward-hacking and drift signals on a training run, checked between steps.

The recorder calls ``check`` at each step boundary; every ``every`` steps (the team's
setting) and at the last step it reads the metrics the signals need, assesses them
(``experiments.health``), stores the states on the run (``Run.health``, pushed live with the
run's frame) and, for a signal that has just breached, leaves a ``health`` event (a marker
on the charts). A breached signal whose team set ``pause_on_breach`` pauses the run at the
next step boundary with the signal's sentence as the reason (``control.signal_breached``).

A team's thresholds live in ``HealthSettings`` (no row: the defaults); editors and admins
change them (``update_settings``), audited.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from tasks_app.services import pinning

from .. import config as cfg
from .. import health
from ..models import HealthSettings, MetricPoint, Run, RunEvent, RunEventKind
from . import control, live, metric_queries


def team_settings(team: Team) -> health.Settings:
    row = HealthSettings.objects.filter(team=team).first()
    settings, _ = health.parse_settings(row.settings if row else {})
    return settings


def update_settings(user: AbstractBaseUser, team: Team, data: Any) -> health.Settings:
    """Change some of the team's thresholds (the rest stay); bad input changes nothing."""
    if not isinstance(data, Mapping):
        raise field_errors([("non_field_errors", "must be a JSON object")])
    current = health.settings_dict(team_settings(team))
    merged: dict[str, Any] = {**current, **data}
    given = data.get("signals", {})
    if isinstance(given, Mapping):
        signals = dict(current["signals"])
        for name, conf in given.items():
            signals[name] = {**signals.get(name, {}), **conf} if isinstance(conf, Mapping) else conf
        merged["signals"] = signals
    settings, problems = health.parse_settings(merged)
    if problems:
        raise field_errors(problems)
    saved = health.settings_dict(settings)
    with transaction.atomic():
        HealthSettings.objects.update_or_create(
            team=team,
            defaults={"settings": saved, "updated_by": user, "updated_at": timezone.now()},
        )
        record(user, "health_settings.changed", team, team=team, changes=dict(data))
    return settings


def history(run: Run) -> dict[str, list[tuple[int, float | None]]]:
    """The run's points of the metrics the signals read, per key, in step order."""
    keys = health.metric_keys(metric_queries.keys_of(run.pk))
    out: dict[str, list[tuple[int, float | None]]] = {key: [] for key in keys}
    rows = MetricPoint.objects.filter(run=run, key__in=keys).order_by("step")
    for key, step, value in rows.values_list("key", "step", "value"):
        out[key].append((step, value))
    return out


def reward_weights(run: Run) -> dict[str, float] | None:
    """Each reward part's largest weight among the run's verifiers: a part that every one of
    them weighs 0 adds nothing to the reward (``health.part_dominates`` leaves it out).
    None for an outside run without an experiment: its verifiers are unknown, every part counts."""
    if run.experiment_id is None:
        return None
    ids = [f.verifier_version for f in cfg.parse(run.experiment.config).curriculum.families]
    out: dict[str, float] = {}
    for spec in pinning.verifier_specs(run.team, ids).values():
        for part, weight in spec.get("reward", {}).get("weights", {}).items():
            out[part] = max(out.get(part, 0.0), abs(float(weight)))
    return out


def band(run: Run) -> tuple[float, float]:
    """The curriculum's target band as the run trains it now (changes included); an outside
    run without an experiment is held to the signals' default band."""
    if run.experiment_id is None:
        return health.DEFAULT_BAND
    low, high = cfg.parse(run.experiment.config).curriculum.band
    changes = RunEvent.objects.filter(run=run, kind=RunEventKind.CURRICULUM).order_by("id")
    for change in changes.values_list("change", flat=True):
        if "band" in change:
            low, high = change["band"]
    return float(low), float(high)


def check(run: Run, step: int, *, last: bool = False) -> list[health.Signal] | None:
    """Assess the signals when ``step`` is due (every ``every`` steps, and the ``last``)."""
    settings = team_settings(run.team)
    if not last and step % settings.every:
        return None
    signals = health.assess(history(run), settings, band(run), reward_weights(run))
    before = {s.get("name"): s.get("state") for s in (run.health or {}).get("signals", [])}
    run.health = {"step": step, "signals": [s.as_dict() for s in signals]}
    Run.objects.filter(pk=run.pk).update(health=run.health)
    for signal in signals:
        if signal.state == health.BREACHED and before.get(signal.name) != health.BREACHED:
            _breached(run, step, signal)
    live.run_changed(Run.objects.get(pk=run.pk))
    return signals


def _breached(run: Run, step: int, signal: health.Signal) -> None:
    change = {"signal": signal.name, "label": signal.label, "since_step": signal.since_step}
    # An outside run's trainer cannot be paused from here: its breach is marked, not acted on.
    pause = signal.pause_on_breach and not run.external
    reason = health.pause_reason(signal) if pause else f"{signal.label}: {signal.sentence}."
    control.signal_breached(run, step, reason, change, pause=pause)
