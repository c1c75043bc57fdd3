"""A checkpoint exported as a Hugging Face model directory: `manage.py export_checkpoint` and
GET /api/v1/checkpoints/<id>/export/ (a zip), with the lineage the platform collects."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

import pytest
import torch
import yaml
from django.core.management import CommandError, call_command
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM

from experiments.models import Checkpoint, EvaluationReport, Run
from experiments.services import experiments, exports, promotion
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from tests.experiments.test_promotion import report_on
from training import digits, tiny_models
from training.config import ModelConfig, SamplingConfig, SFTConfig
from training.engine import train
from training.interfaces import DirectoryStore
from training.lora import LoraConfig
from training.models import load_model

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict[str, Path]:
    """A LoRA checkpoint and a full one, trained for one SFT step on a tiny Qwen2."""
    root = tmp_path_factory.mktemp("exports")
    base = tiny_models.build("qwen2", root / "base", vocab_size=300)
    made = {}
    for kind, rank in (("lora", 4), ("full", 0)):
        config = SFTConfig(
            max_steps=1,
            prompts_per_step=2,
            sampling=SamplingConfig(max_new_tokens=8),
            model=ModelConfig(path=str(base), lora=LoraConfig(rank=rank)),
        )
        model, tokenizer = load_model(config.model)
        store = DirectoryStore(root / kind)
        train(
            config,
            sampler=digits.DigitSortSampler(3, 5, seed=3),
            reward_fn=digits.reward_fn,
            store=store,
            model=model,
            tokenizer=tokenizer,
        )
        made[kind] = store.latest()
    return made


@pytest.fixture
def run(owner, team) -> Run:
    advertise()
    pool, verifier = digit_version(owner, team), digit_verifier(owner, team)
    experiment = experiments.create_experiment(
        owner, team, name="sort-lora", config=config_for(pool, verifier)
    )
    return Run.objects.create(experiment=experiment, team=team, number=1, created_by=owner)


@pytest.fixture
def lora_checkpoint(run, trained) -> Checkpoint:
    return Checkpoint.objects.create(run=run, step=1, path=str(trained["lora"]))


def card(text: str) -> dict:
    return yaml.safe_load(text.split("---\n")[1])


def test_it_collects_the_lineage_with_report_verdicts_and_promotion(owner, team, lora_checkpoint):
    report = EvaluationReport.objects.get(pk=report_on(owner, team, lora_checkpoint).pk)
    promotion.promote(owner, lora_checkpoint, report)
    lineage = exports.lineage(lora_checkpoint)
    assert lineage["title"] == "sort-lora, run 1, step 1"
    assert lineage["run"] == {
        "id": lora_checkpoint.run_id, "number": 1, "source": "platform", "name": "sort-lora"
    }
    assert lineage["experiment"]["name"] == "sort-lora"
    assert [p["family"] for p in lineage["pool_versions"]] == ["digits"]
    assert [v["number"] for v in lineage["verifier_versions"]] == [1]
    assert lineage["reports"] == [
        {
            "id": report.pk,
            "version": 1,
            "state": "approved",
            "headline": report.headline,
            "regressed_families": [],
        }
    ]
    assert lineage["promotion"]["report"] == report.pk
    assert [f["family"] for f in lineage["format"]["families"]] == ["digits"]


def test_the_command_writes_a_loadable_directory_with_its_lineage(lora_checkpoint, tmp_path):
    out = tmp_path / "export"
    call_command("export_checkpoint", str(lora_checkpoint.pk), str(out), stdout=io.StringIO())
    AutoModelForCausalLM.from_pretrained(out)
    meta = card((out / "README.md").read_text())
    assert meta["crucible"]["lineage"]["run"]["id"] == lora_checkpoint.run_id
    assert meta["crucible"]["lora"]["rank"] == 4

    call_command(
        "export_checkpoint", str(lora_checkpoint.pk), str(tmp_path / "adapter"), "--adapter-only"
    )
    assert (tmp_path / "adapter" / "adapter_model.safetensors").is_file()

    call_command(
        "export_checkpoint", str(lora_checkpoint.pk), str(tmp_path / "f16"), "--dtype", "float16"
    )
    weights = load_file(str(tmp_path / "f16" / "model.safetensors"))
    assert {t.dtype for t in weights.values()} == {torch.float16}


def test_the_command_names_what_it_cannot_export(run, trained, tmp_path):
    full = Checkpoint.objects.create(run=run, step=1, path=str(trained["full"]))
    with pytest.raises(CommandError, match="adapter_only: checkpoint .* holds full weights"):
        call_command("export_checkpoint", str(full.pk), str(tmp_path / "x"), "--adapter-only")
    with pytest.raises(CommandError, match="no checkpoint 999999"):
        call_command("export_checkpoint", "999999", str(tmp_path / "y"))


def download(client, checkpoint: Checkpoint, query: str = ""):
    return client.get(f"/api/v1/checkpoints/{checkpoint.pk}/export/{query}")


def unzipped(response, into: Path) -> Path:
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    body = b"".join(response.streaming_content)
    zipfile.ZipFile(io.BytesIO(body)).extractall(into)
    return into


def test_a_member_downloads_the_merged_model_as_a_zip(api, lora_checkpoint, tmp_path):
    response = download(api, lora_checkpoint)
    assert (
        f'filename="run-{lora_checkpoint.run_id}-step-000001-model.zip"'
        in (response["Content-Disposition"])
    )
    out = unzipped(response, tmp_path / "model")
    assert {"model.safetensors", "config.json", "generation_config.json", "README.md"} <= {
        p.name for p in out.iterdir()
    }
    AutoModelForCausalLM.from_pretrained(out)
    left = Path(tempfile.gettempdir()).glob(f"checkpoint-{lora_checkpoint.pk}-export-*")
    assert not list(left)  # the temporary export went once it was sent


def test_a_viewer_downloads_the_adapter_alone(client_for, teammate, lora_checkpoint, tmp_path):
    response = download(client_for(teammate), lora_checkpoint, "?adapter_only=1")
    out = unzipped(response, tmp_path / "adapter")
    assert (out / "adapter_config.json").is_file() and not (out / "model.safetensors").exists()
    assert card((out / "README.md").read_text())["library_name"] == "peft"


def test_the_download_is_written_in_the_precision_asked_for(api, lora_checkpoint, tmp_path):
    out = unzipped(download(api, lora_checkpoint, "?dtype=bfloat16"), tmp_path / "bf16")
    weights = load_file(str(out / "model.safetensors"))
    assert {t.dtype for t in weights.values()} == {torch.bfloat16}
    response = download(api, lora_checkpoint, "?dtype=int4")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "dtype"


def test_another_team_gets_a_404(client_for, outsider, lora_checkpoint):
    response = download(client_for(outsider), lora_checkpoint)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def test_it_answers_409_for_what_it_cannot_export(api, run, trained):
    full = Checkpoint.objects.create(run=run, step=1, path=str(trained["full"]))
    response = download(api, full, "?adapter_only=true")
    assert response.status_code == 409
    assert response.json()["errors"][0]["field"] == "adapter_only"
    gone = Checkpoint.objects.create(run=run, step=2, path="/nonexistent/step-000002")
    response = download(api, gone)
    assert response.status_code == 409 and "no longer on disk" in str(response.json())
    response = download(api, full, "?adapter_only=perhaps")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "adapter_only"
