"""An outside run uploads its checkpoint (a Hugging Face model directory) in resumable chunks;
it becomes a checkpoint evaluated, exported and registered like a platform one."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path
from unittest import mock

import pytest

from experiments.models import Checkpoint, CheckpointUpload, EvaluationState, RegisteredModel
from experiments.services import evaluation, registry
from tests.experiments.runs_setup import digit_verifier, digit_version
from training import tiny_models

pytestmark = pytest.mark.django_db
CHUNK = 256 * 1024


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    return tiny_models.build("qwen2", tmp_path_factory.mktemp("outside") / "model", vocab_size=300)


@pytest.fixture(autouse=True)
def runs_dir(settings, tmp_path):
    settings.RUNS_DIR = tmp_path / "runs"


@pytest.fixture
def run_id(api, team) -> int:
    body = {"team": "reasoning", "name": "trl", "base_model": "tiny-qwen2"}
    return api.post("/api/v1/runs/", body, format="json").json()["id"]


def manifest(root: Path) -> list[dict]:
    return [
        {"path": p.relative_to(root).as_posix(), "size": p.stat().st_size,
         "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted(root.rglob("*")) if p.is_file()
    ]  # fmt: skip


def put(api, upload_id: int, path: str, offset: int, data: bytes):
    return api.generic(
        "PUT",
        f"/api/v1/checkpoint-uploads/{upload_id}/files/?path={path}&offset={offset}",
        data,
        content_type="application/octet-stream",
    )


def send_all(api, upload_id: int, root: Path, files: list[dict], received: dict[str, int]):
    for item in files:
        data = (root / item["path"]).read_bytes()
        for offset in range(received.get(item["path"], 0), len(data), CHUNK):
            answer = put(api, upload_id, item["path"], offset, data[offset : offset + CHUNK])
            assert answer.status_code == 200, answer.json()


def errors(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def start(api, run_id: int, files: list[dict], step: int = 10):
    body = {"step": step, "files": files}
    return api.post(f"/api/v1/runs/{run_id}/checkpoint-uploads/", body, format="json")


@pytest.mark.slow
def test_an_uploaded_checkpoint_resumes_and_is_evaluated_exported_and_registered(
    api, owner, team, run_id, model_dir
):
    files = manifest(model_dir)
    first = start(api, run_id, files)
    assert first.status_code == 201
    upload_id = first.json()["id"]
    weights = next(f for f in files if f["path"].endswith(".safetensors"))
    data = (model_dir / weights["path"]).read_bytes()
    assert put(api, upload_id, weights["path"], 0, data[:CHUNK]).status_code == 200
    # the answer was lost and the chunk is sent again: refused, with where to go on from
    again = put(api, upload_id, weights["path"], 0, data[:CHUNK])
    assert again.status_code == 409 and f"send from offset {CHUNK}" in errors(again)["offset"]
    early = api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/")
    assert early.status_code == 409 and "not every file has arrived" in errors(early)["files"]
    # the trainer restarts: the same declaration finds the open upload and what it holds
    resumed = start(api, run_id, files)
    assert resumed.status_code == 200 and resumed.json()["id"] == upload_id
    held = {f["path"]: f["received"] for f in resumed.json()["files"]}
    assert held[weights["path"]] == CHUNK
    send_all(api, upload_id, model_dir, files, held)
    done = api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/")
    assert done.status_code == 201, done.json()
    checkpoint = Checkpoint.objects.get(pk=done.json()["id"])
    assert checkpoint.step == 10 and checkpoint.size_bytes == sum(f["size"] for f in files)
    assert (Path(checkpoint.path) / "model" / "config.json").is_file()
    assert api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/").json()["id"] == checkpoint.pk
    listed = api.get(f"/api/v1/runs/{run_id}/checkpoints/").json()
    assert [c["name"] for c in listed] == ["step-000010"]

    exported = api.get(f"/api/v1/checkpoints/{checkpoint.pk}/export/")
    assert exported.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(b"".join(exported.streaming_content))).namelist()
    assert any(n.endswith("config.json") for n in names)

    model = RegisteredModel.objects.create(team=team, name="outside", created_by=owner)
    version = registry.register(owner, model, checkpoint=checkpoint.pk)
    assert version.lineage["run"] == {"id": run_id, "number": 1, "source": "external", "name": "trl"}
    assert version.lineage["experiment"] is None

    pool, verifier = digit_version(owner, team), digit_verifier(owner, team)
    families = [{"pool_version": pool.pk, "verifier_version": verifier.pk}]
    with mock.patch("crucible.jobs.send"):
        job = evaluation.start(
            owner, team, families, evaluation.Settings(k=1, max_new_tokens=4, max_tasks=2),
            checkpoint=checkpoint.pk,
        )  # fmt: skip
    evaluation.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == EvaluationState.SUCCEEDED, job.message
    assert job.subject == "trl run 1, step 10"


def test_it_refuses_unsafe_or_oversized_declarations(api, run_id, settings):
    good = {"path": "config.json", "size": 2, "sha256": "0" * 64}
    cases = {
        "../escape.json": "relative",
        "/etc/passwd": "relative",
        "a/../../b": "relative",
        ".hidden": "relative",
        "a\\b": "relative",
        "pytorch_model.bin": "pickled",
        "a/b/c/d/e": "levels",
    }
    for path, named in cases.items():
        response = start(api, run_id, [good, {**good, "path": path}])
        assert response.status_code == 400, path
        assert named in errors(response)["files[1]"], (path, response.json())
    twice = start(api, run_id, [good, {**good, "path": "CONFIG.json"}])
    assert "declared twice" in errors(twice)["files[1].path"]
    assert "config.json" in errors(start(api, run_id, [{**good, "path": "x.json"}]))["files"]
    settings.CHECKPOINT_UPLOAD_MAX_BYTES = 10
    big = start(api, run_id, [{**good, "size": 11}])
    assert big.status_code == 400 and "at most 10" in errors(big)["files"]
    bad_sha = start(api, run_id, [{**good, "sha256": "XYZ"}])
    assert "sha256" in errors(bad_sha)["files[0]"]
    assert not CheckpointUpload.objects.exists()


def test_chunks_stay_inside_their_declared_files(api, run_id, tmp_path):
    content = b"{}"
    files = [{"path": "config.json", "size": 2, "sha256": hashlib.sha256(content).hexdigest()}]
    upload_id = start(api, run_id, files).json()["id"]
    undeclared = put(api, upload_id, "../../secret", 0, b"x")
    assert undeclared.status_code == 400 and "path" in errors(undeclared)
    past = put(api, upload_id, "config.json", 0, b"{}{}")
    assert past.status_code == 400 and "declared 2 bytes" in errors(past)["body"]
    assert put(api, upload_id, "config.json", 0, content).status_code == 200
    # a directory with no tokenizer or weights is not a model: refused, the upload stays open
    loads = api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/")
    assert loads.status_code == 400 and "causal language model" in errors(loads)["files"]
    assert api.delete(f"/api/v1/checkpoint-uploads/{upload_id}/").status_code == 204
    assert not CheckpointUpload.objects.exists()


def test_a_file_that_does_not_match_its_digest_is_dropped(api, run_id):
    files = [{"path": "config.json", "size": 2, "sha256": "0" * 64}]
    upload_id = start(api, run_id, files).json()["id"]
    put(api, upload_id, "config.json", 0, b"{}")
    wrong = api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/")
    assert wrong.status_code == 409 and "do not match their sha256" in errors(wrong)["files"]
    held = api.get(f"/api/v1/checkpoint-uploads/{upload_id}/").json()["files"][0]["received"]
    assert held == 0


def test_a_symlink_in_the_staging_folder_is_never_followed(api, run_id, settings, tmp_path):
    files = [{"path": "sub/config.json", "size": 2, "sha256": "0" * 64}, {
        "path": "config.json", "size": 2, "sha256": "0" * 64}]  # fmt: skip
    upload_id = start(api, run_id, files).json()["id"]
    outside = tmp_path / "outside"
    outside.mkdir()
    staging = Path(settings.RUNS_DIR) / str(run_id) / "uploads" / str(upload_id)
    staging.mkdir(parents=True)
    (staging / "sub").symlink_to(outside)
    response = put(api, upload_id, "sub/config.json", 0, b"{}")
    assert response.status_code == 400 and "link" in errors(response)["path"]
    (staging / "config.json").symlink_to(outside / "target")
    response = put(api, upload_id, "config.json", 0, b"{}")
    assert response.status_code == 400 and not (outside / "target").exists()


def test_only_editors_of_the_team_upload(api, client_for, teammate, outsider, run_id):
    files = [{"path": "config.json", "size": 2, "sha256": "0" * 64}]
    assert client_for(teammate).post(
        f"/api/v1/runs/{run_id}/checkpoint-uploads/", {"step": 1, "files": files}, format="json"
    ).status_code == 403
    upload_id = start(api, run_id, files).json()["id"]
    for who, code in ((teammate, 403), (outsider, 404)):
        client = client_for(who)
        assert client.get(f"/api/v1/checkpoint-uploads/{upload_id}/").status_code == code
        assert put(client, upload_id, "config.json", 0, b"{}").status_code == code
        assert client.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/").status_code == code


def test_a_directory_that_does_not_load_is_refused_with_what_from_pretrained_said(api, run_id):
    contents = {
        "config.json": b'{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"}',
        "tokenizer.json": b"not a tokenizer",
        "model.safetensors": b"not weights",
    }
    files = [
        {"path": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        for name, data in contents.items()
    ]
    upload_id = start(api, run_id, files).json()["id"]
    for name, data in contents.items():
        assert put(api, upload_id, name, 0, data).status_code == 200
    refused = api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/")
    assert refused.status_code == 400 and "does not load" in errors(refused)["files"]
    assert not Checkpoint.objects.exists()
    assert CheckpointUpload.objects.get(pk=upload_id).state == "open"
