"""The model registry in real Chromium: name a model, register a promoted checkpoint and an
unpromoted one, see each version's lineage and training format, point production at the
promoted one, and find production greyed out, with the reason, on the other."""

from __future__ import annotations

from playwright.sync_api import expect

from experiments.models import Checkpoint, EvaluationReport, Run
from experiments.services import experiments, promotion
from tests.e2e.conftest import screenshot
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from tests.experiments.test_promotion import report_on


def checkpoints(user, where) -> tuple[Checkpoint, Checkpoint]:  # type: ignore[no-untyped-def]
    """Two checkpoints of one run of a real experiment; the first promoted on an approved report."""
    team = user.memberships.get().team
    advertise()
    config = config_for(digit_version(user, team), digit_verifier(user, team))
    experiment = experiments.create_experiment(user, team, name="sort-grpo", config=config)
    run = Run.objects.create(experiment=experiment, team=team, number=1, created_by=user)
    made = []
    for step in (40, 80):
        (where / f"step-{step:06d}" / "model").mkdir(parents=True)
        made.append(
            Checkpoint.objects.create(run=run, step=step, path=str(where / f"step-{step:06d}"))
        )
    report = EvaluationReport.objects.get(pk=report_on(user, team, made[0]).pk)
    promotion.promote(user, made[0], report)
    return made[0], made[1]


def test_it_registers_checkpoints_and_points_production_at_the_promoted_one(
    signed_in_page, e2e_user, tmp_path
):  # type: ignore[no-untyped-def]
    promoted, later = checkpoints(e2e_user, tmp_path)
    page = signed_in_page

    page.goto("/registry")
    page.get_by_label("Model name").fill("sorter")
    page.get_by_role("button", name="New model").click()
    page.get_by_role("link", name="sorter").click()

    # A checkpoint is chosen by its run, then its step; the promoted one says so.
    page.get_by_label("Run", exact=True).select_option(label="sort-grpo · run 1 (queued)")
    checkpoint = page.get_by_label("Checkpoint", exact=True)
    expect(checkpoint.get_by_role("option", name="step 40 (step-000040) · promoted")).to_be_attached()
    checkpoint.select_option(str(promoted.pk))
    page.get_by_role("button", name="Register").click()
    first = page.get_by_role("listitem", name="Version 1")
    expect(first.get_by_role("link", name="run 1")).to_be_visible()
    expect(first.get_by_label("Training format")).to_contain_text("sort {digits}=")
    expect(first.get_by_label("Training format")).to_contain_text("raw prompt, no chat template")
    expect(first.get_by_text("Promoted")).to_be_visible()

    first.get_by_role("button", name="Set alias").click()  # production: the default once promoted
    expect(page.get_by_label("Model aliases")).to_contain_text("production → v1")

    page.get_by_label("Run", exact=True).select_option(label="sort-grpo · run 1 (queued)")
    page.get_by_label("Checkpoint", exact=True).select_option(str(later.pk))
    page.get_by_role("button", name="Register").click()
    second = page.get_by_role("listitem", name="Version 2")
    expect(second.get_by_role("option", name="production (not promoted)")).to_be_disabled()
    expect(second.get_by_text("is not promoted")).to_be_visible()
    screenshot(page, "registry-model")
