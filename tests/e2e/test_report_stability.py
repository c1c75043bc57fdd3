"""A report on a family played as an environment in real Chromium: the capability profile
draws stability over turns (success by turns used, within t turns, pass^k of repeated
episodes) for candidate and baseline, and the exported HTML carries the same plots. The two
finished evaluations are written with the ORM: no model runs."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from experiments.services import reports
from tests.e2e.conftest import screenshot
from tests.experiments.episode_reports_setup import BASELINE, CANDIDATE, finished_episode_job

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_report_on_an_environment_family_shows_stability_over_turns(
    signed_in_page, e2e_user
) -> None:
    page = signed_in_page
    team = e2e_user.memberships.get().team
    base = finished_episode_job(e2e_user, team, BASELINE, "tiny")
    cand = finished_episode_job(e2e_user, team, CANDIDATE, "guess run 1, step 80")
    report = reports.create(e2e_user, team, cand, base)

    page.goto(f"/reports/{report.pk}")
    stability = page.get_by_role("region", name="Stability over turns")
    for chart in ("success by turns used", "success within t turns", "pass^k of repeated episodes"):
        expect(stability.get_by_role("img", name=f"guess: {chart}")).to_be_visible()
    table = stability.get_by_role("table", name="Stability over turns")
    expect(table.get_by_role("row")).to_have_count(3)
    expect(table.get_by_role("row").nth(1)).to_contain_text("baseline")
    expect(table.get_by_role("row").nth(2)).to_contain_text("guess")
    expect(table.get_by_role("row").nth(2)).to_contain_text("83%")  # candidate success
    stability.scroll_into_view_if_needed()
    screenshot(page, "report-stability-over-turns")

    exported = page.request.get(f"/api/v1/reports/{report.pk}/export/")
    assert exported.ok
    assert "aria-label='guess: pass^k of repeated episodes'" in exported.text()
