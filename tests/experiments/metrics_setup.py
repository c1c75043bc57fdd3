"""Runs to record metrics into, without the machinery that launches them."""

from __future__ import annotations

from experiments.models import Experiment, Run, RunState


def make_run(team, state: str = RunState.RUNNING, name: str = "metrics") -> Run:
    experiment = Experiment.objects.create(team=team, name=name, config={}, config_hash="0" * 64)
    number = Run.objects.filter(experiment=experiment).count() + 1
    return Run.objects.create(experiment=experiment, team=team, number=number, state=state)
