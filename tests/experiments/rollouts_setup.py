"""A run with stored rollouts for inspector tests: real pool tasks, real verdicts of the digit
sorting verifier, recorded through the run's recorder as a training job records them."""

from __future__ import annotations

from unittest import mock

import torch

from experiments.adapters import pool_item, verifier_reward_fn
from experiments.models import Run
from experiments.services import experiments, runs
from experiments.services.recording import RunRecorder, Source
from tasks_app.services import pinning
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from training.interfaces import Completion
from training.metrics import reward_metrics

GROUP_SIZE = 4


def answers(expected: str) -> list[str]:
    """A group's G completions: right, right with a space (refused: the verifier wants the
    exact string), a digit short, and empty (refused on format)."""
    return [expected, f"{expected[0]} {expected[1:]}", expected[:-1], ""]


def judged_run(owner, team, steps: int = 2, groups: int = 3) -> Run:
    """A finished run whose ``steps`` steps each stored ``groups`` groups of 4 completions,
    with the engine's reward metrics of each step."""
    advertise()
    version, verifier = digit_version(owner, team), digit_verifier(owner, team)
    experiment = experiments.create_experiment(
        owner, team, name="Sort", config=config_for(version, verifier)
    )
    with mock.patch("crucible.jobs.send"):
        run = runs.claim(runs.launch(owner, experiment).pk, "celery@test")
    recorder = RunRecorder(
        run, rollout_groups=groups, sources={"digits": Source(version.pk, verifier.pk)}
    )
    reward_fn = verifier_reward_fn(verifier.spec)
    tasks = list(pinning.version_tasks(version.pk, pinning.TRAIN))
    for step in range(1, steps + 1):
        chosen = tasks[(step - 1) * groups : step * groups]
        items = [pool_item(t, "digits", t.meta["content_hash"]) for t in chosen]
        rows = [item for item in items for _ in range(GROUP_SIZE)]
        texts = [text for t in chosen for text in answers(t.expected["answer"])]
        results = reward_fn(rows, texts)
        rewards = [r.reward or 0.0 for r in results]
        recorder.log(step, reward_metrics(rows, results, torch.tensor(rewards)))
        means = [
            sum(rewards[g : g + GROUP_SIZE]) / GROUP_SIZE for g in range(0, len(rows), GROUP_SIZE)
        ]
        recorder.rollouts(
            step,
            [
                Completion(
                    item,
                    text,
                    result,
                    i // GROUP_SIZE,
                    i % GROUP_SIZE,
                    rewards[i] - means[i // GROUP_SIZE],
                )
                for i, (item, text, result) in enumerate(zip(rows, texts, results, strict=True))
            ],
        )
    runs.finish(run, "succeeded", log_tail="")
    return Run.objects.get(pk=run.pk)
