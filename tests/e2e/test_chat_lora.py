"""A real model's flow in real Chromium: a tiny Qwen2 instruct model with a chat template in
the models folder is chosen in the wizard with the chat format and LoRA, pre-flighted, trained
(the jobs run here in the test process, as the cpu and gpu workers run them), evaluated with
its base model in its own chat format (and the base in chat format from the New evaluation
page), and its checkpoint downloaded as a Hugging Face model directory that
transformers loads and that generates in the trained chat format."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
import torch
import yaml
from playwright.sync_api import Page, expect
from transformers import AutoModelForCausalLM, AutoTokenizer

from experiments.models import (
    EvaluationJob,
    EvaluationReport,
    EvaluationState,
    PreflightReport,
    Run,
    RunState,
)
from experiments.services import evaluation, preflight, suites, training_job
from tasks_app.services import curricula
from tests.e2e.conftest import full_screenshot
from tests.experiments.runs_setup import (  # noqa: F401 (fixture)
    advertise,
    digit_verifier,
    digit_version,
    models_dir,
)
from training import tiny_models

CHAT_MODEL = "tiny-qwen2-chat"
SYSTEM = "Sort the digits in ascending order."


@pytest.fixture
def chat_setup(e2e_user, settings, models_dir, tmp_path):  # noqa: F811
    """The tiny chat model in the models folder, offered by a running worker, and a saved
    curriculum over digit sorting with its verifier."""
    settings.MODELS_DIR = models_dir
    settings.RUNS_DIR = tmp_path / "runs"
    if not (models_dir / CHAT_MODEL / "config.json").is_file():
        tiny_models.build("qwen2", models_dir / CHAT_MODEL)
    advertise(CHAT_MODEL)
    team = e2e_user.memberships.get().team
    version = digit_version(e2e_user, team, counts={2: 20, 3: 20})
    verifier = digit_verifier(e2e_user, team)
    suites.create_suite(
        e2e_user,
        team,
        name="Held-out digits",
        families=[{"pool_version": version.pk, "verifier_version": verifier.pk}],
        settings_=evaluation.Settings(k=2, max_new_tokens=8, max_tasks=4),
    )
    curricula.create_curriculum(
        e2e_user,
        team,
        name="Digit chat",
        slug="digit-chat",
        description="Two and three digits.",
        config={"families": [{"version": version.pk, "weight": 1}], "window": 16},
    )
    return models_dir / CHAT_MODEL


def test_a_chat_model_trains_with_lora_from_the_wizard_and_exports(
    signed_in_page: Page, chat_setup: Path, tmp_path: Path
) -> None:
    page = signed_in_page
    page.goto("/experiments/new")
    page.get_by_role("radio", name=re.compile("Digit chat")).check()
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Base model").select_option(CHAT_MODEL)
    page.get_by_label("Prompt format").select_option("chat")
    page.get_by_label("System prompt").fill(SYSTEM)
    page.get_by_label("LoRA rank").fill("4")
    page.get_by_label("LoRA alpha").fill("8")
    full_screenshot(page, "chat-lora-wizard-model")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("group_size", exact=True).fill("4")
    page.get_by_label("max_steps", exact=True).fill("2")
    page.get_by_label("checkpoint_every", exact=True).fill("2")
    page.get_by_role("button", name="Review").click()
    page.get_by_label("Name").fill("Chat sorter with adapters")

    panel = page.get_by_role("region", name="Pre-flight", exact=True)
    panel.get_by_label("Tasks per level").fill("2")
    panel.get_by_role("button", name="Run pre-flight").click()
    expect(panel.get_by_role("status")).to_contain_text("Waiting for a cpu worker", timeout=15_000)
    check = PreflightReport.objects.get()
    assert check.config["prompt_format"]["kind"] == "chat"
    assert check.config["prompt_format"]["system_prompt"] == SYSTEM
    assert check.config["lora"]["rank"] == 4
    preflight.run_job(check.pk)  # sampled and judged in chat format, as a cpu worker does
    expect(panel.get_by_role("table", name="digits by difficulty level")).to_be_visible(
        timeout=20_000
    )
    full_screenshot(page, "chat-lora-preflight")

    page.get_by_role("button", name="Create and launch").click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    run = Run.objects.get()
    training_job.run_job(run.pk, "celery@here")  # what the gpu worker does with the queued run
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)

    page.goto(f"/runs/{run.pk}/checkpoints")
    row = page.get_by_role("row").filter(has_text="step-000002")
    expect(row).to_be_visible(timeout=20_000)
    expect(row.get_by_role("link", name="Adapter")).to_be_visible()
    full_screenshot(page, "chat-lora-checkpoints")
    # Evaluate the checkpoint and its base model with the Checkpoints tab's button: the
    # checkpoint in the chat format it trained in, and the base model in that same format, so
    # the report compares the training and not a change of format.
    checkpoint = run.checkpoints.get(step=2)
    row.get_by_role("button", name="Evaluate and compare with the base model").click()
    expect(page.get_by_role("status").filter(has_text="Queued evaluation")).to_be_visible()
    candidate = EvaluationJob.objects.get(checkpoint=checkpoint)
    baseline = EvaluationJob.objects.get(model=CHAT_MODEL)
    assert evaluation.prompt_format(candidate).kind == "chat"
    assert evaluation.prompt_format(candidate).system_prompt == SYSTEM
    assert evaluation.prompt_format(baseline) == evaluation.prompt_format(candidate)
    # The New evaluation page evaluates a base model in chat format when the user picks it.
    page.goto(f"/evaluations/new?model={CHAT_MODEL}")
    page.get_by_label("Prompt format").select_option("chat")
    page.get_by_label("System prompt").fill(SYSTEM)
    full_screenshot(page, "chat-lora-new-evaluation")
    page.get_by_role("button", name="Start evaluation").click()
    page.wait_for_url(re.compile(r"/reports$"))
    picked = EvaluationJob.objects.exclude(pk__in=[candidate.pk, baseline.pk]).get()
    assert picked.model == CHAT_MODEL
    assert evaluation.prompt_format(picked) == evaluation.prompt_format(candidate)
    for job in (candidate, baseline):  # what the cpu worker does with the queued jobs
        evaluation.run_job(job.pk)
        job.refresh_from_db()
        assert job.state == EvaluationState.SUCCEEDED, job.message

    # Compare them into a report from the Reports page.
    page.goto("/reports/new")
    form = page.get_by_role("form", name="Compare evaluations")
    form.get_by_label("Candidate").select_option(str(candidate.pk))
    form.get_by_label("Baseline").select_option(str(baseline.pk))
    form.get_by_role("button", name="Make the report").click()
    page.wait_for_url(re.compile(r"/reports/\d+$"))
    expect(page.get_by_role("table").first).to_be_visible(timeout=20_000)
    report = EvaluationReport.objects.get()
    assert page.url.endswith(f"/reports/{report.pk}")
    full_screenshot(page, "chat-lora-report")

    # Download the checkpoint as a Hugging Face model directory from its run's Checkpoints tab.
    page.goto(f"/runs/{run.pk}/checkpoints")
    expect(row.get_by_role("link", name="Merged model")).to_be_visible(timeout=20_000)
    with page.expect_download() as download:
        row.get_by_role("link", name="Merged model").click()
    archive = tmp_path / "export.zip"
    download.value.save_as(archive)

    exported = tmp_path / "exported"
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(exported)
    root = next(p.parent for p in exported.rglob("config.json"))
    card = (root / "README.md").read_text()
    meta = yaml.safe_load(card.split("---")[1])  # the model card's front matter
    lineage = meta["crucible"]["lineage"]
    assert lineage["title"] == f"Chat sorter with adapters, run {run.number}, step 2"
    assert [r["id"] for r in lineage["reports"]] == [report.pk]
    assert lineage["format"]["system_prompt"] == SYSTEM
    tokenizer = AutoTokenizer.from_pretrained(root)
    assert tokenizer.chat_template and "<|im_start|>" in tokenizer.chat_template
    model = AutoModelForCausalLM.from_pretrained(root)
    assert not (root / "adapter_config.json").exists()  # merged: a plain model directory
    prompt = tokenizer.apply_chat_template(
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "sort 31="}],
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )
    with torch.no_grad():
        out = model.generate(**prompt, max_new_tokens=4, do_sample=False)
    assert out.shape[1] > prompt["input_ids"].shape[1]
    generation = json.loads((root / "generation_config.json").read_text())
    stop = generation["eos_token_id"]
    stops = stop if isinstance(stop, list) else [stop]
    assert tokenizer.convert_tokens_to_ids("<|im_end|>") in stops
