"""A report made in real Chromium from two finished evaluations: the Reports page's
"Compare evaluations" form offers only the baselines on the candidate's tasks, makes the
report and opens it; the candidate's evaluation page then lists it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from experiments.models import EvaluationReport
from tests.e2e.conftest import screenshot
from tests.experiments.reports_setup import finished_job

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_report_is_made_from_two_evaluations_in_the_browser(signed_in_page, e2e_user) -> None:
    page = signed_in_page
    team = e2e_user.memberships.get().team
    base = finished_job(e2e_user, team, [1, 2, 0, 3] * 10, "tiny-digit-sort")
    cand = finished_job(e2e_user, team, [3, 4, 2, 4] * 10, "digit-sort run 1, step 40")

    page.goto("/reports")
    page.get_by_role("link", name="Compare evaluations").first.click()
    form = page.get_by_role("form", name="Compare evaluations")
    form.get_by_label("Candidate", exact=True).select_option(str(cand.pk))
    form.get_by_label("Baseline", exact=True).select_option(str(base.pk))
    form.get_by_role("button", name="Make the report").click()

    page.wait_for_url(re.compile(r"/reports/\d+$"))
    report = EvaluationReport.objects.get()
    assert (report.candidate_id, report.baseline_id) == (cand.pk, base.pk)
    assert page.url.endswith(f"/reports/{report.pk}")
    expect(page.get_by_label("Headline")).to_contain_text("improved: digits")
    screenshot(page, "report-made-in-browser")

    page.goto(f"/evaluations/{cand.pk}")
    reports = page.get_by_role("table", name="Reports")
    expect(
        reports.get_by_role("link", name="digit-sort run 1, step 40 vs tiny-digit-sort")
    ).to_have_attribute("href", f"/reports/{report.pk}")
