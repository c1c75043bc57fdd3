"""Health signals on a recorded run: checked at step boundaries, stored, and a breach that
the team asked to pause on pauses the run with the signal's sentence."""

from __future__ import annotations

import pytest

from experiments.models import Run, RunEvent, RunState
from experiments.services import control, experiments, health, runs
from experiments.services.recording import RunRecorder
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(owner, team):
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    return runs.claim(runs.launch(owner, experiment).pk, "celery@w")


def train(run: Run, steps: int, reward, heldout) -> RunRecorder:
    """Record ``steps`` steps as the worker does, stopping where the run is asked to."""
    recorder = RunRecorder(run, rollout_groups=0, sources={})
    for step in range(1, steps + 1):
        metrics = {"reward/mean": reward(step), "entropy": 0.8}
        if step % 10 == 0:
            metrics["eval/success/digits"] = heldout(step)
        recorder.log(step, metrics)
        recorder.progress(step, 100, metrics)
        if runs.should_stop(run):
            break
    return recorder


def test_a_breach_pauses_nothing_unless_the_team_asks(run):
    train(run, 80, reward=lambda s: 0.2 + 0.005 * s, heldout=lambda s: 0.31)
    current = Run.objects.get(pk=run.pk)
    assert not current.pause_requested and current.step == 80
    states = {s["name"]: s["state"] for s in current.health["signals"]}
    assert states["reward_vs_heldout"] == "breached"
    assert RunEvent.objects.get(run=run).kind == "health"


def test_it_pauses_a_run_whose_reward_climbs_while_held_out_success_stays_flat(run, owner):
    health.update_settings(
        owner, run.team, {"signals": {"reward_vs_heldout": {"pause_on_breach": True}}}
    )
    recorder = train(run, 80, reward=lambda s: 0.2 + 0.005 * s, heldout=lambda s: 0.31)
    current = Run.objects.get(pk=run.pk)
    assert current.pause_requested and current.step == 40 and recorder.checkpoint_on_stop()
    assert current.pause_reason == (
        "Paused: training reward rose 0.20 while held-out success stayed at 0.31 over steps "
        "1–40 (signal: reward rising, held-out flat)."
    )
    states = {s["name"]: s["state"] for s in current.health["signals"]}
    assert current.health["step"] == 40
    assert states["reward_vs_heldout"] == "breached" and states["entropy_collapse"] == "ok"
    assert states["kl_spike"] == "unavailable"
    event = RunEvent.objects.get(run=run)
    assert event.kind == "health" and event.applied_at_step is None
    assert control.describe(event) == "Signal: Reward rising, held-out flat breached"
    control.paused_at(run, 40)
    assert RunEvent.objects.get(run=run).applied_at_step == 40


def test_it_leaves_a_run_whose_held_out_success_keeps_up_running(run):
    train(run, 60, reward=lambda s: 0.2 + 0.005 * s, heldout=lambda s: 0.2 + 0.005 * s)
    current = Run.objects.get(pk=run.pk)
    assert current.state == RunState.RUNNING and not current.pause_requested
    assert current.step == 60 and current.health["step"] == 60
    assert not RunEvent.objects.filter(run=run).exists()


def test_a_breach_the_team_does_not_pause_on_is_marked_once(run, owner):
    health.update_settings(
        owner, run.team, {"signals": {"reward_vs_heldout": {"pause_on_breach": False}}}
    )
    train(run, 60, reward=lambda s: 0.2 + 0.005 * s, heldout=lambda s: 0.31)
    current = Run.objects.get(pk=run.pk)
    assert not current.pause_requested and current.step == 60
    event = RunEvent.objects.get(run=run)
    assert event.applied_at_step == 40 and event.change["signal"] == "reward_vs_heldout"
    assert event.reason.startswith("Reward rising, held-out flat: training reward rose")


def test_it_checks_at_the_teams_interval_and_at_the_last_step(run, owner):
    health.update_settings(owner, run.team, {"every": 25})
    recorder = RunRecorder(run, rollout_groups=0, sources={})
    recorder.log(1, {"entropy": 0.01})
    assert health.check(run, 24) is None
    assert health.check(run, 25) is not None
    assert Run.objects.get(pk=run.pk).health["step"] == 25
    assert health.check(run, 26, last=True) is not None


def test_it_leaves_out_reward_parts_the_runs_verifier_weighs_zero(run):
    # The digit verifier's reward is its outcome alone: a process score it logs adds nothing.
    assert health.reward_weights(run) == {
        "outcome": 1.0, "process": 0.0, "constraint": 0.0, "judge": 0.0,
    }  # fmt: skip
    recorder = RunRecorder(run, rollout_groups=0, sources={})
    for step in range(1, 11):
        metrics = {"reward/mean": 0.1, "reward/outcome": 0.1, "reward/process": 0.9}
        recorder.log(step, metrics)
        recorder.progress(step, 10, metrics)
    states = {s["name"]: s["state"] for s in Run.objects.get(pk=run.pk).health["signals"]}
    assert states["part_dominates"] == "unavailable"
