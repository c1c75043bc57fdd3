"""Evaluation suites in real Chromium: a suite saved with a field error on the way, listed,
and offered by the new-evaluation form."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot
from tests.experiments.runs_setup import digit_verifier, digit_version


def test_it_saves_a_suite_and_offers_it_to_a_new_evaluation(signed_in_page, e2e_user):  # type: ignore[no-untyped-def]
    team = e2e_user.memberships.get().team
    digit_version(e2e_user, team)
    digit_verifier(e2e_user, team)
    page = signed_in_page

    page.goto("/evaluation-suites")
    page.get_by_role("link", name="New suite").first.click()
    page.get_by_label("Name").fill("Held-out core")
    family = page.get_by_role("group", name="Family 1")
    expect(family.get_by_label("Pool version")).to_contain_text("digits · v1")
    family.get_by_label("Pool version").select_option(index=1)
    family.get_by_label("Verifier version").select_option(index=1)

    # A k the server refuses: the message sits under the field and nothing is saved.
    k = page.get_by_label("Samples per task (k)")
    k.fill("0")
    page.get_by_role("button", name="Create suite").click()
    expect(k).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text("Ensure this value is greater than or equal to 1.")).to_be_visible()
    screenshot(page, "evaluation-suite-field-error")

    k.fill("2")
    page.get_by_role("button", name="Create suite").click()
    expect(page).to_have_url(re.compile(r"/evaluation-suites/\d+$"))
    expect(page.get_by_role("heading", name="Held-out core")).to_be_visible()

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Evaluation suites").click()
    table = page.get_by_role("table", name="Evaluation suites")
    expect(table).to_contain_text("Held-out core")
    expect(table).to_contain_text("digits v1 (threshold 2 pts)")

    page.get_by_role("link", name="New evaluation").click()
    expect(page.get_by_label("Evaluation suite")).to_contain_text("Held-out core")
    expect(page.get_by_text(re.compile(r"digits v1 \(threshold 2 pts\); k = 2"))).to_be_visible()
    screenshot(page, "new-evaluation-from-suite")
