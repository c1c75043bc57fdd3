"""The whole outside path, as a user drives it with the client: a TRL GRPOTrainer with a LoRA
``peft_config`` streams into an outside run through ``CrucibleCallback`` while the web server
is stopped and started again (the spool carries the steps), uploads its adapter as the run's
checkpoint, which a real Celery worker evaluates; a report compares it with its base model
and the checkpoint is registered. What the user sees is asserted at each stage."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from crucible_client import Crucible
from crucible_client.tracking import CrucibleCallback, CrucibleClient
from peft import LoraConfig
from transformers import AutoTokenizer, TrainerCallback

from experiments.models import Run
from tests.client.test_outage import restartable, server_at_one_address  # noqa: F401 (fixtures)
from tests.client.test_tracking import points_of
from tests.client.trl_setup import digit_grpo
from tests.conftest import celery_worker
from tests.experiments.runs_setup import digit_verifier, digit_version
from tests.web_server import database_url
from training import tiny_models

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
BASE = "tiny-qwen2"
STEPS = 4


@pytest.fixture
def models_dir(tmp_path, monkeypatch) -> Path:
    """The catalogue the server and the worker share: set before either starts (a server
    restarted mid-run starts with it too)."""
    folder = tmp_path / "models"
    monkeypatch.setenv("CRUCIBLE_MODELS_DIR", str(folder))
    return folder


@pytest.fixture
def evaluator(models_dir, restartable, redis_url):  # noqa: F811 - the imported fixture
    """A real Celery worker on the server's folders: its catalogue and its runs' checkpoints."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CRUCIBLE_VAR_DIR": str(restartable.workdir / "var"),
        "DJANGO_SETTINGS_MODULE": "crucible.settings.base",
    }
    with celery_worker(env, queues="cpu") as process:
        yield process


def grpo_with_an_outage(base_dir: Path, client: CrucibleClient, restartable, out: Path):  # noqa: F811
    """GRPO with LoRA on the digit-sort task; the server is down from step 1 to step 3."""

    class Outage(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            if state.global_step == 1:
                restartable.stop()
            if state.global_step == 3:
                restartable.start()

    trainer = digit_grpo(
        base_dir, AutoTokenizer.from_pretrained(base_dir), out, steps=STEPS, prompts=16,
        callbacks=[Outage(), CrucibleCallback(client, drain_timeout_s=60)], learning_rate=1e-2,
        peft_config=LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
    )  # fmt: skip
    trainer.train()
    trainer.save_model(str(out / "final"))  # the adapter, the tokenizer, training_args.bin
    return out / "final"


def evaluated(crucible: Crucible, job_ids: list[int], worker, timeout_s: float = 150) -> list[dict]:
    deadline = time.monotonic() + timeout_s
    while True:
        jobs = [crucible.evaluations.get(job_id) for job_id in job_ids]
        if all(job["state"] in ("succeeded", "failed") for job in jobs):
            return jobs
        assert worker.poll() is None, worker.stdout.read().decode()[-3000:]
        assert time.monotonic() < deadline, [(j["state"], j["progress"]) for j in jobs]
        time.sleep(1)


def test_a_trl_run_outside_goes_through_an_outage_evaluation_report_and_registry(
    models_dir, restartable, evaluator, token, owner, team, tmp_path  # noqa: F811
):
    base_dir = tiny_models.build("qwen2", models_dir / BASE, vocab_size=300)
    pool, verifier = digit_version(owner, team), digit_verifier(owner, team)
    crucible = Crucible(restartable.url, token)

    # 1. Training outside, through an outage: every step is on the run.
    run = crucible.runs.init(team.slug, name="grpo-lora", base_model=BASE, max_steps=STEPS)
    assert run["source"] == "external" and run["state"] == "running"
    client = CrucibleClient(restartable.url, token, run["id"], retries=1, backoff_s=0.1)
    final = grpo_with_an_outage(base_dir, client, restartable, tmp_path / "trl")
    assert restartable.stack is not None, "the server is back"
    shown = crucible.runs.get(run["id"])
    assert shown["step"] == STEPS and "reward" in shown["summary"]
    rewards = crucible.runs.metrics(run["id"], keys=["reward"])
    assert rewards["points"]["reward"]["step"] == list(range(1, STEPS + 1)), rewards
    stored = points_of(Run.objects.get(pk=run["id"]))
    assert [step for step, _, _ in stored["kl"]] == list(range(1, STEPS + 1))

    # 2. The adapter goes up (the trainer's pickles stay behind) and the run ends.
    checkpoint = crucible.runs.upload_checkpoint(run["id"], final, STEPS, progress=False)
    assert checkpoint["adapter"] is True and checkpoint["step"] == STEPS
    assert [c["id"] for c in crucible.runs.checkpoints(run["id"])] == [checkpoint["id"]]
    assert crucible.runs.finish(run["id"])["state"] == "succeeded"

    # 3. The checkpoint and its base evaluated on the same family by the worker.
    families = [{"pool_version": pool.pk, "verifier_version": verifier.pk}]
    same = {"team": team.slug, "families": families, "k": 2, "max_new_tokens": 6, "max_tasks": 4}
    candidate = crucible.evaluations.create({**same, "checkpoint": checkpoint["id"]})
    baseline = crucible.evaluations.create({**same, "model": BASE})
    done = evaluated(crucible, [candidate["id"], baseline["id"]], evaluator)
    assert [job["state"] for job in done] == ["succeeded", "succeeded"], done
    assert done[0]["subject"] == f"grpo-lora run {run['number']}, step {STEPS}"

    # 4. The report against the base, and the checkpoint registered with its lineage.
    report = crucible.reports.create({"candidate": candidate["id"], "baseline": baseline["id"]})
    assert report["candidate_checkpoint"] == checkpoint["id"] and report["headline"]
    assert report["baseline_subject"] == BASE and report["state"] == "draft"
    model = crucible.registry.models.create({"team": team.slug, "name": "grpo-lora"})
    version = crucible.registry.register({"model": model["id"], "checkpoint": checkpoint["id"]})
    assert version["checkpoint"] == checkpoint["id"] and version["number"] == 1
    assert version["lineage"]["run"]["source"] == "external"
    assert version["lineage"]["run"]["id"] == run["id"]
