"""Curricula in real Chromium: a curriculum over a frozen pool version, its field errors and preview."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot


def freeze_arithmetic_version(user) -> None:  # type: ignore[no-untyped-def]
    from tasks_app.services import pools

    team = user.memberships.get().team
    family = pools.create_family(user, team, name="Arithmetic", slug="arithmetic", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 30, 2: 30, 3: 30}, seed=1)
    pools.version_from_tasks(user, family, tasks, source="generator", detail={"seed": 1}, near=False)


def test_it_creates_a_curriculum_and_plots_its_preview(signed_in_page, e2e_user):  # type: ignore[no-untyped-def]
    freeze_arithmetic_version(e2e_user)
    page = signed_in_page

    page.goto("/curricula")
    page.get_by_role("link", name="New curriculum").first.click()
    page.get_by_label("Name").fill("Arithmetic ramp")
    family = page.get_by_role("group", name="Family 1")
    expect(family.get_by_label("Pool version")).to_contain_text("arithmetic · v1")

    # A band whose low end is above its high end is refused, and the message sits under the band.
    page.get_by_label("Band high").fill("0.2")
    page.get_by_role("button", name="Create curriculum").click()
    expect(page.get_by_role("group", name="Target success band")).to_contain_text("must be [low, high] with 0 <= low < high <= 1")
    expect(page.get_by_label("Band high")).to_have_attribute("aria-invalid", "true")
    screenshot(page, "curriculum-field-error")

    page.get_by_label("Band high").fill("0.7")
    page.get_by_role("button", name="Create curriculum").click()
    expect(page).to_have_url(re.compile(r"/curricula/\d+$"))
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()

    page.get_by_label("Steps").fill("200")
    page.get_by_role("button", name="Run preview").click()
    area = page.get_by_role("img", name="arithmetic: sampling distribution over levels")
    expect(area.locator("path.chart-area")).to_have_count(3)
    line = page.get_by_role("img", name="arithmetic: rolling success rate")
    expect(line.locator("rect.chart-band")).to_have_count(1)
    expect(line.locator('path[data-series="rolling"]')).to_have_attribute("d", re.compile(r"^M.+L"))
    expect(page.get_by_test_id("in-band-arithmetic")).to_have_text(re.compile(r"^\d+%$"))
    screenshot(page, "curriculum-preview")

    page.goto("/curricula")
    expect(page.get_by_role("link", name="Arithmetic ramp")).to_be_visible()
