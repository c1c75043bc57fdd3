"""The wizard's pre-flight in real Chromium: started on the configuration about to launch, its
job run (here in the test process, as a cpu worker runs it), its report shown per family and
level with what to change, and kept with the experiment created from that configuration."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from experiments.models import PreflightReport
from experiments.services import preflight
from tasks_app.services import curricula
from tests.e2e.conftest import full_screenshot
from tests.experiments.runs_setup import (  # noqa: F401 (fixture)
    advertise,
    digit_verifier,
    digit_version,
    models_dir,
)


@pytest.fixture
def demo_pools(e2e_user, settings, models_dir):  # noqa: F811
    """A saved curriculum over digit sorting at 2 to 5 digits, its verifier, a worker row
    offering the tiny model (whose copy here is a short warm start)."""
    settings.MODELS_DIR = models_dir
    advertise()
    team = e2e_user.memberships.get().team
    version = digit_version(e2e_user, team, counts={2: 40, 3: 40, 4: 40, 5: 40})
    digit_verifier(e2e_user, team)
    curricula.create_curriculum(
        e2e_user,
        team,
        name="Digit ramp",
        slug="digit-ramp",
        description="Two digits to five.",
        config={"families": [{"version": version.pk, "weight": 1}], "window": 16},
    )


def test_it_runs_a_preflight_from_the_wizard_and_keeps_it_with_the_experiment(
    signed_in_page: Page, demo_pools
) -> None:
    page = signed_in_page
    page.goto("/experiments/new")
    page.get_by_role("radio", name=re.compile("Digit ramp")).check()
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Base model").select_option("tiny-digit-sort")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("group_size", exact=True).fill("4")
    page.get_by_role("button", name="Review").click()
    page.get_by_label("Name").fill("Digit sort, checked first")

    panel = page.get_by_role("region", name="Pre-flight", exact=True)
    panel.get_by_label("Tasks per level").fill("12")
    panel.get_by_role("button", name="Run pre-flight").click()
    # Validating the configuration takes a moment on a busy machine.
    expect(panel.get_by_role("status")).to_contain_text("Waiting for a cpu worker", timeout=15_000)
    report = PreflightReport.objects.get()
    assert report.tasks_per_level == 12 and report.config["hyperparameters"]["group_size"] == 4

    preflight.run_job(report.pk)  # what the cpu worker does with the queued job
    table = panel.get_by_role("table", name="digits by difficulty level")
    expect(table).to_be_visible(timeout=20_000)  # the panel polls while it runs
    expect(table.locator("tbody tr")).to_have_count(4)
    expect(
        panel.get_by_role("list", name="What to change").or_(panel.locator(".alert-success"))
    ).to_be_visible()
    expect(panel).to_contain_text("4 completions at temperature")
    full_screenshot(page, "preflight-wizard")

    page.get_by_role("button", name="Create and launch").click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    page.get_by_role("link", name="Digit sort, checked first").first.click()
    card = page.get_by_role("region", name="Pre-flight", exact=True)
    expect(card.get_by_role("table", name="digits by difficulty level")).to_be_visible()
    full_screenshot(page, "preflight-experiment")
    assert PreflightReport.objects.get().experiment is not None
