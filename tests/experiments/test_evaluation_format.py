"""An evaluation's prompt format through /api/v1/evaluations/: a base model evaluated in chat
format when asked, or in the format a checkpoint trained in (so a report compares a checkpoint
with its base in one format), refused by field name when the model cannot take it."""

from __future__ import annotations

import shutil
from pathlib import Path
from unittest import mock

import pytest

from experiments.models import Checkpoint, EvaluationJob, Experiment, Run
from experiments.services import evaluation
from tests.experiments.runs_setup import digit_verifier, digit_version
from training import tiny_models
from training.prompting import CHAT, RAW_FORMAT

pytestmark = pytest.mark.django_db
CHAT_MODEL = "tiny-qwen2-chat"
PLAIN_MODEL = "tiny-qwen2-plain"
SYSTEM = "Sort the digits."
CHAT_FORMAT = {"kind": "chat", "system_prompt": SYSTEM, "reasoning_tags": ["<think>", "</think>"]}


@pytest.fixture(scope="module")
def built_models(tmp_path_factory) -> Path:
    """A models folder with a tiny Qwen2 chat model and a copy whose tokenizer has no template."""
    folder = tmp_path_factory.mktemp("models")
    tiny_models.build("qwen2", folder / CHAT_MODEL)
    plain = shutil.copytree(folder / CHAT_MODEL, folder / PLAIN_MODEL)
    (plain / "chat_template.jinja").unlink()
    return folder


@pytest.fixture
def world(owner, team, settings, built_models, tmp_path):
    settings.MODELS_DIR = built_models
    version, verifier = digit_version(owner, team), digit_verifier(owner, team)
    config = {"model": CHAT_MODEL, "prompt_format": {"kind": "chat", "system_prompt": SYSTEM}}
    experiment = Experiment.objects.create(team=team, name="chat", config=config, config_hash="c")
    run = Run.objects.create(experiment=experiment, team=team, number=1, created_by=owner)
    (tmp_path / "step-000002" / "model").mkdir(parents=True)
    saved = Checkpoint.objects.create(run=run, step=2, path=str(tmp_path / "step-000002"))
    families = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):
        yield families, saved


def post(api, families, **body):
    return api.post(
        "/api/v1/evaluations/", {"team": "reasoning", "families": families, **body}, format="json"
    )


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def test_a_base_model_is_evaluated_raw_unless_the_evaluation_names_chat(api, world):
    families, _ = world
    raw = post(api, families, model=CHAT_MODEL)
    assert raw.status_code == 202, raw.json()
    assert raw.json()["prompt_format"]["kind"] == "raw"
    assert evaluation.prompt_format(EvaluationJob.objects.get(pk=raw.json()["id"])) == RAW_FORMAT

    chat = post(api, families, model=CHAT_MODEL, prompt_format={"kind": "chat",
                                                               "system_prompt": SYSTEM})  # fmt: skip
    assert chat.status_code == 202, chat.json()
    assert chat.json()["prompt_format"] == CHAT_FORMAT
    job = EvaluationJob.objects.get(pk=chat.json()["id"])
    assert job.prompt_format == CHAT_FORMAT
    assert evaluation.prompt_format(job).kind == CHAT
    assert api.get(f"/api/v1/evaluations/{job.pk}/").json()["prompt_format"] == CHAT_FORMAT


def test_a_base_model_compared_with_a_checkpoint_takes_the_checkpoints_format(api, world):
    families, saved = world
    candidate = post(api, families, checkpoint=saved.pk)
    assert candidate.status_code == 202, candidate.json()
    assert candidate.json()["prompt_format"] == CHAT_FORMAT  # the format it trained in
    baseline = post(api, families, model=CHAT_MODEL, format_of_checkpoint=saved.pk)
    assert baseline.status_code == 202, baseline.json()
    assert baseline.json()["prompt_format"] == CHAT_FORMAT
    job = EvaluationJob.objects.get(pk=baseline.json()["id"])
    assert job.model == CHAT_MODEL and job.checkpoint is None
    assert evaluation.prompt_format(job) == evaluation.prompt_format(
        EvaluationJob.objects.get(pk=candidate.json()["id"])
    )
    # A checkpoint may be evaluated in another format when the evaluation says so.
    raw = post(api, families, checkpoint=saved.pk, prompt_format={"kind": "raw"})
    assert raw.status_code == 202 and raw.json()["prompt_format"]["kind"] == "raw"


def test_it_refuses_a_format_the_model_cannot_take_naming_the_field(api, world):
    families, saved = world
    cases = [
        ({"model": PLAIN_MODEL, "prompt_format": {"kind": "chat"}}, "prompt_format.kind",
         "has none"),
        ({"model": PLAIN_MODEL, "format_of_checkpoint": saved.pk}, "format_of_checkpoint",
         "has none"),
        ({"model": CHAT_MODEL, "prompt_format": {"kind": "json"}}, "prompt_format.kind",
         "must be one of"),
        ({"model": CHAT_MODEL, "prompt_format": {"kind": "raw", "system_prompt": "x"}},
         "prompt_format.system_prompt", "needs kind chat"),
        ({"model": CHAT_MODEL, "prompt_format": {"kind": "chat", "colour": 1}},
         "prompt_format.colour", ""),
        ({"model": CHAT_MODEL, "prompt_format": "chat"}, "prompt_format", ""),
        ({"model": CHAT_MODEL, "format_of_checkpoint": saved.pk + 1000}, "format_of_checkpoint",
         "does not exist"),
        ({"model": CHAT_MODEL, "format_of_checkpoint": saved.pk, "prompt_format": {"kind": "raw"}},
         "format_of_checkpoint", "not both"),
    ]  # fmt: skip
    for body, field, says in cases:
        response = post(api, families, **body)
        assert response.status_code == 400, (body, response.json())
        assert field in fields(response), (body, response.json())
        assert says in fields(response)[field], (body, response.json())
    assert not EvaluationJob.objects.exists()


def test_a_job_from_before_the_choice_keeps_its_old_format(owner, team, world):
    families, saved = world
    older = {"families": families, "k": 1, "temperature": 1.0, "max_new_tokens": 4,
             "max_tasks": 1, "team": team}  # fmt: skip
    base = EvaluationJob.objects.create(model=CHAT_MODEL, subject=CHAT_MODEL, **older)
    of_checkpoint = EvaluationJob.objects.create(checkpoint=saved, subject="run 1", **older)
    assert base.prompt_format is None and evaluation.prompt_format(base) == RAW_FORMAT
    assert evaluation.prompt_format(of_checkpoint).system_prompt == SYSTEM
