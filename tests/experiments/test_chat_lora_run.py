"""A chat-format LoRA experiment through the platform: a tiny Qwen2 chat model in the models
folder is pre-flighted and trains with adapters in chat format, its model version records the
chat format, and an evaluation of its checkpoint runs in that format."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest
from rest_framework.exceptions import ValidationError

from experiments.models import Checkpoint, EvaluationState, PreflightState, RunState
from experiments.services import (
    evaluation,
    experiments,
    preflight,
    registry,
    runs,
    training_job,
)
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    advertise,
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)
from training import tiny_models
from training.lora import ADAPTER_CONFIG
from training.models import load_tokenizer
from training.prompting import end_of_turn_ids

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CHAT_MODEL = "tiny-qwen2-chat"
SYSTEM = "Sort the digits."


@pytest.fixture
def chat_model(settings, models_dir, tmp_path) -> Path:  # noqa: F811
    settings.MODELS_DIR = models_dir
    settings.RUNS_DIR = tmp_path / "runs"
    path = models_dir / CHAT_MODEL
    if not (path / "config.json").is_file():
        tiny_models.build("qwen2", path)
    return path


def test_a_chat_lora_experiment_trains_records_its_format_and_evaluates(owner, team, chat_model):
    version, verifier = digit_version(owner, team), digit_verifier(owner, team)
    advertise(CHAT_MODEL)
    config = config_for(
        version,
        verifier,
        model=CHAT_MODEL,
        hyperparameters={"max_steps": 2, "checkpoint_every": 2},
        prompt_format={"kind": "chat", "system_prompt": SYSTEM},
        lora={"rank": 4, "alpha": 8},
    )
    with mock.patch("crucible.jobs.send"):
        report = preflight.start(owner, team, config, tasks_per_level=2)
    preflight.run_job(report.pk)  # sampled and judged in the experiment's chat format
    report.refresh_from_db()
    assert report.state == PreflightState.SUCCEEDED, report.message
    experiment = experiments.create_experiment(owner, team, name="Chat", config=config)
    assert experiment.config["prompt_format"]["kind"] == "chat"
    assert experiment.config["lora"]["rank"] == 4
    with mock.patch("crucible.jobs.send"):
        run = runs.launch(owner, experiment)
    training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)

    checkpoint = Checkpoint.objects.get(run=run, step=2)
    adapter = Path(checkpoint.path) / "model"
    assert (adapter / ADAPTER_CONFIG).is_file()  # the adapter alone, not the merged weights
    assert not (adapter / "model.safetensors").exists()
    base = json.loads((adapter / ADAPTER_CONFIG).read_text())["base_model_name_or_path"]
    assert base == CHAT_MODEL  # by catalogue name: a moved models folder still loads it

    model = registry.create_model(owner, team, name="chat-sorter")
    registered = registry.register(owner, model, checkpoint=checkpoint.pk)
    template = load_tokenizer(chat_model).chat_template
    assert registered.format["chat_template"] == template
    assert registered.format["system_prompt"] == SYSTEM
    assert registered.format["reasoning_tags"] == ["<think>", "</think>"]
    served_raw = registry.check_format(registered, {"chat_template": None})
    assert len(served_raw) == 1 and served_raw[0].startswith("chat format differs")

    chat_model.rename(chat_model.with_name("moved"))  # its template can no longer be read
    try:
        with pytest.raises(ValidationError) as refused:
            registry.register(owner, model, checkpoint=checkpoint.pk)
    finally:
        chat_model.with_name("moved").rename(chat_model)
    assert "chat template cannot be read: unknown model" in str(refused.value.detail)

    families = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):
        job = evaluation.start(
            owner, team, families, evaluation.Settings(k=2, max_new_tokens=8, max_tasks=4),
            checkpoint=checkpoint.pk,
        )  # fmt: skip
    assert evaluation.prompt_format(job).system_prompt == SYSTEM
    evaluation.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == EvaluationState.SUCCEEDED, job.message
    results = list(job.results.all())
    assert len(results) == 4 and all(r.k == 2 and 0 <= r.passes <= 2 for r in results)
    assert end_of_turn_ids(load_tokenizer(adapter))  # the checkpoint's tokenizer can stop a turn
