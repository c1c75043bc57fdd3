"""An outside run uploads a LoRA adapter (peft's ``save_pretrained``) naming its base: it
becomes a checkpoint on that catalogue model, evaluated, exported (merged or alone),
promoted and registered like a platform LoRA run's; hostile adapters are refused, naming
the field."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from unittest import mock

import pytest
import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import AutoModelForCausalLM

from experiments.models import Checkpoint, CheckpointUpload, EvaluationState, RegisteredModel, Run
from experiments.services import evaluation, registry
from tests.experiments.runs_setup import digit_verifier, digit_version
from tests.experiments.test_checkpoint_uploads_api import errors, manifest, put, start
from tests.experiments.test_promotion import promote, report_on
from training import tiny_models

pytestmark = pytest.mark.django_db
BASE = "tiny-qwen2"


@pytest.fixture(scope="module")
def models_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("catalogue")
    tiny_models.build("qwen2", root / BASE, vocab_size=300)
    return root


def adapter(base_dir: Path, out: Path, *, targets=("q_proj", "v_proj"), seed: int = 0) -> Path:
    """A peft LoRA adapter on ``base_dir``, its B matrices drawn so it changes the model."""
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(base_dir)
    config = LoraConfig(r=4, lora_alpha=8, target_modules=list(targets), task_type="CAUSAL_LM")
    peft = get_peft_model(model, config)
    with torch.no_grad():
        for name, weight in peft.named_parameters():
            if "lora_B" in name:
                weight.normal_(0, 0.5)
    peft.save_pretrained(out)  # adapter_config.json names base_dir, and a README.md
    return out


@pytest.fixture(scope="module")
def adapter_dir(models_root, tmp_path_factory) -> Path:
    return adapter(models_root / BASE, tmp_path_factory.mktemp("adapter") / "lora")


@pytest.fixture(autouse=True)
def folders(settings, tmp_path, models_root):
    settings.RUNS_DIR = tmp_path / "runs"
    settings.MODELS_DIR = models_root


@pytest.fixture
def run_id(api, team) -> int:
    body = {"team": "reasoning", "name": "trl-lora"}
    return api.post("/api/v1/runs/", body, format="json").json()["id"]


def upload(api, run_id: int, root: Path, step: int = 20, contents: dict[str, bytes] | None = None):
    """Send ``root``'s files (or ``contents``) as an upload; the answer of ``complete``."""
    if contents is None:
        contents = {item["path"]: (root / item["path"]).read_bytes() for item in manifest(root)}
    files = [{"path": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
             for name, data in contents.items()]  # fmt: skip
    started = start(api, run_id, files, step=step)
    assert started.status_code == 201, started.json()
    upload_id = started.json()["id"]
    for name, data in contents.items():
        assert put(api, upload_id, name, 0, data).status_code == 200
    return api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/")


def unzipped(response, into: Path) -> Path:
    assert response.status_code == 200
    zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))).extractall(into)
    return into


@pytest.mark.slow
def test_an_adapter_becomes_a_checkpoint_on_its_catalogue_base(
    api, owner, team, run_id, adapter_dir, models_root, tmp_path
):
    done = upload(api, run_id, adapter_dir)
    assert done.status_code == 201, done.json()
    assert done.json()["adapter"] is True and done.json()["step"] == 20
    checkpoint = Checkpoint.objects.get(pk=done.json()["id"])
    model_dir = Path(checkpoint.path) / "model"
    config = json.loads((model_dir / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == BASE  # by catalogue name, wherever the folder
    assert (model_dir / "tokenizer.json").is_file(), "the base's tokenizer came beside it"
    assert Run.objects.get(pk=run_id).base_model == BASE  # the run named none: it takes its base

    # Exported merged: the adapter's effect is in the weights, as peft computes it.
    merged = unzipped(api.get(f"/api/v1/checkpoints/{checkpoint.pk}/export/"), tmp_path / "m")
    assert not (merged / "adapter_config.json").exists()
    ids = torch.tensor([[5, 17, 42, 7]])
    base = AutoModelForCausalLM.from_pretrained(models_root / BASE)
    base_logits = base(ids).logits
    expected = PeftModel.from_pretrained(base, adapter_dir).merge_and_unload()(ids).logits
    got = AutoModelForCausalLM.from_pretrained(merged)(ids).logits
    assert torch.allclose(got, expected, atol=1e-4)
    assert not torch.allclose(got, base_logits, atol=1e-3), "the adapter changes the model"
    alone = api.get(f"/api/v1/checkpoints/{checkpoint.pk}/export/?adapter_only=1")
    alone_dir = unzipped(alone, tmp_path / "a")
    assert (alone_dir / "adapter_model.safetensors").is_file()
    assert not (alone_dir / "model.safetensors").exists()

    pool, verifier = digit_version(owner, team), digit_verifier(owner, team)
    families = [{"pool_version": pool.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):  # run here, in this process, below
        job = evaluation.start(
            owner, team, families, evaluation.Settings(k=1, max_new_tokens=4, max_tasks=2),
            checkpoint=checkpoint.pk,
        )  # fmt: skip
    evaluation.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == EvaluationState.SUCCEEDED, job.message

    promoted = promote(api, checkpoint, report_on(owner, team, checkpoint))
    assert promoted.status_code == 201, promoted.json()
    model = RegisteredModel.objects.create(team=team, name="outside-lora", created_by=owner)
    version = registry.register(owner, model, checkpoint=checkpoint.pk)
    assert version.lineage["run"]["source"] == "external" and version.checkpoint == checkpoint


@pytest.mark.slow
def test_the_run_names_the_base_when_the_adapter_names_a_path_elsewhere(
    api, team, adapter_dir, tmp_path
):
    config = json.loads((adapter_dir / "adapter_config.json").read_text())
    config["base_model_name_or_path"] = "/home/someone/checkpoints/base-v2"
    contents = {
        "adapter_config.json": json.dumps(config).encode(),
        "adapter_model.safetensors": (adapter_dir / "adapter_model.safetensors").read_bytes(),
    }
    body = {"team": "reasoning", "name": "named", "base_model": BASE}
    named = api.post("/api/v1/runs/", body, format="json").json()["id"]
    done = upload(api, named, adapter_dir, contents=contents)
    assert done.status_code == 201, done.json()


def test_it_refuses_an_unknown_base_naming_the_field_and_keeps_the_upload(
    api, run_id, adapter_dir
):
    config = json.loads((adapter_dir / "adapter_config.json").read_text())
    sent = json.dumps({**config, "base_model_name_or_path": "acme/not-here"}).encode()
    contents = {
        "adapter_config.json": sent,
        "adapter_model.safetensors": (adapter_dir / "adapter_model.safetensors").read_bytes(),
    }
    refused = upload(api, run_id, adapter_dir, contents=contents)
    assert refused.status_code == 400
    assert "'acme/not-here'" in errors(refused)["base_model"]
    assert BASE in errors(refused)["base_model"], "it lists what the catalogue holds"
    upload_row = CheckpointUpload.objects.get()
    assert upload_row.state == "open" and not Checkpoint.objects.exists()
    held = api.get(f"/api/v1/checkpoint-uploads/{upload_row.pk}/").json()["files"]
    assert all(f["received"] == f["size"] for f in held), "the config is kept as it was sent"


@pytest.mark.slow
def test_it_refuses_an_adapter_of_another_shape_with_what_did_not_fit(
    api, run_id, models_root, tmp_path
):
    other = tiny_models.build("qwen2", tmp_path / "wider" / BASE, hidden=96, vocab_size=300)
    wrong = adapter(other, tmp_path / "wrong")  # names .../tiny-qwen2: the catalogue's name
    refused = upload(api, run_id, wrong)
    assert refused.status_code == 400
    message = errors(refused)["files"]
    assert "does not load on its base" in message and "size mismatch" in message, message
    missing = adapter(models_root / BASE, tmp_path / "missing", targets=("q_proj",))
    config = json.loads((missing / "adapter_config.json").read_text())
    config["target_modules"] = ["no_such_proj"]
    (missing / "adapter_config.json").write_text(json.dumps(config))
    refused = upload(api, run_id, missing, step=21)
    assert refused.status_code == 400 and "no_such_proj" in errors(refused)["files"]
    assert not Checkpoint.objects.exists()


def test_it_refuses_hostile_adapter_declarations(api, run_id):
    digest = "0" * 64
    config = {"path": "adapter_config.json", "size": 10, "sha256": digest}
    weights = {"path": "adapter_model.safetensors", "size": 10, "sha256": digest}
    cases = [
        ([config, {**weights, "path": "adapter_model.bin"}], "files[1]", "pickled"),
        ([config, weights, {**weights, "path": "../adapter_model.safetensors"}], "files[2]",
         "relative"),
        ([config], "files", "adapter_model.safetensors"),
        ([{**config, "size": 10**6}, weights], "files", "adapter_config.json is at most"),
    ]  # fmt: skip
    for files, field, named in cases:
        response = start(api, run_id, files)
        assert response.status_code == 400, files
        assert named in errors(response)[field], response.json()
    assert not CheckpointUpload.objects.exists()


def test_it_refuses_an_adapter_config_that_is_not_a_lora_of_a_causal_lm(
    api, run_id, adapter_dir
):
    weights = (adapter_dir / "adapter_model.safetensors").read_bytes()
    cases = [
        (b"not json", "adapter_config.json", "not JSON"),
        (b'{"peft_type": "PROMPT_TUNING", "base_model_name_or_path": "tiny-qwen2"}',
         "adapter_config.json.peft_type", "only LoRA"),
        (b'{"peft_type": "LORA", "task_type": "SEQ_CLS"}', "adapter_config.json.task_type",
         "causal LM"),
    ]  # fmt: skip
    for step, (sent, field, named) in enumerate(cases):
        contents = {"adapter_config.json": sent, "adapter_model.safetensors": weights}
        refused = upload(api, run_id, adapter_dir, step=step, contents=contents)
        assert refused.status_code == 400 and named in errors(refused)[field], refused.json()
    assert not Checkpoint.objects.exists()
