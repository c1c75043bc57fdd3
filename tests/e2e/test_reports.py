"""A report's review in real Chromium by two people, against the production stack (uvicorn
with websockets): the author submits and comments, a teammate replies, approves and promotes
the checkpoint, and the author's open page shows the reply, the approval and the promotion
without reloading."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from crucible.accounts.models import Membership, Role
from experiments.models import Checkpoint, Experiment, Promotion, Run
from experiments.services import reports
from tests.e2e.conftest import PASSWORD, login, screenshot
from tests.e2e.test_runs import asgi_server, models_dir, stack_env  # noqa: F401 (fixtures)
from tests.experiments.reports_setup import finished_job

pytestmark = pytest.mark.django_db(transaction=True)


def tab(browser, url: str, user: str) -> Page:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=url, viewport={"width": 1360, "height": 1600})
    context.set_default_timeout(20_000)
    page = context.new_page()
    login(page, user)
    return page


def trained_checkpoint(user, team, where) -> Checkpoint:  # type: ignore[no-untyped-def]
    """A checkpoint on disk of a run whose drift signals were checked at step 40."""
    experiment = Experiment.objects.create(team=team, name="digit-sort", config={}, config_hash="x")
    signal = {"name": "length_blowup", "label": "Completion length blow-up", "state": "ok",
              "sentence": "completions stayed at 1.1x their early length", "since_step": None,
              "value": 1.1, "threshold": 3.0, "pause_on_breach": False}  # fmt: skip
    run = Run.objects.create(
        experiment=experiment, team=team, number=1, created_by=user, step=40,
        health={"step": 40, "signals": [signal]},
    )  # fmt: skip
    (where / "step-000040" / "model").mkdir(parents=True)
    return Checkpoint.objects.create(run=run, step=40, path=str(where / "step-000040"))


def test_two_people_review_a_report_and_each_sees_the_other_live(
    browser,
    asgi_server,  # noqa: F811
    e2e_user,
    django_user_model,  # noqa: F811
    tmp_path,
) -> None:
    team = e2e_user.memberships.get().team
    bob = django_user_model.objects.create_user("bob", "bob@example.com", PASSWORD)
    Membership.objects.create(user=bob, team=team, role=Role.EDITOR)
    base = finished_job(e2e_user, team, [1, 2, 0, 3] * 10, "tiny-digit-sort")
    cand = finished_job(e2e_user, team, [3, 4, 2, 4] * 10, "digit-sort run 1, step 40")
    cand.checkpoint = trained_checkpoint(e2e_user, team, tmp_path)
    cand.save()
    report = reports.create(e2e_user, team, cand, base)

    alice = tab(browser, asgi_server, "alice")
    alice.goto("/reports")
    alice.get_by_role("link", name=report.lineage).click()
    expect(alice.get_by_label("Headline")).to_have_text("no family regressed; improved: digits")
    families = alice.get_by_role("table", name="Families")
    expect(families).to_contain_text("improved")
    expect(alice.get_by_role("img", name="digits: success by difficulty")).to_be_visible()
    alice.get_by_role("button", name="Submit for review").click()
    expect(alice.get_by_label("Review state")).to_have_text("In review")
    alice.get_by_label("About").select_option("digits")
    alice.get_by_role("textbox", name="Comment").fill(
        "digits gained over 40 points; the interval is tight"
    )
    alice.get_by_role("button", name="Post comment").click()
    expect(alice.get_by_role("list", name="Comments")).to_contain_text("the interval is tight")
    # The run's drift signals are frozen into the report, and a plot can be discussed.
    signals = alice.get_by_role("region", name="Training signals")
    expect(signals).to_contain_text("checked at step 40, frozen with this report")
    expect(signals).to_contain_text("stayed at 1.1x")
    alice.get_by_label("About").select_option(label="Long tail")
    alice.get_by_role("textbox", name="Comment").fill("three tasks never pass")
    alice.get_by_role("button", name="Post comment").click()
    expect(alice.get_by_role("list", name="Comments")).to_contain_text("plot: Long tail")
    expect(alice.get_by_text("needs this report approved")).to_be_visible()

    bob_page = tab(browser, asgi_server, "bob")
    bob_page.goto(f"/reports/{report.pk}")
    comments = bob_page.get_by_role("list", name="Comments")
    expect(comments).to_contain_text("the interval is tight")
    comments.get_by_role("listitem").filter(has_text="the interval is tight").get_by_role(
        "button", name="Reply"
    ).click()
    bob_page.get_by_role("textbox", name="Comment").fill("agreed, and level 3 improved most")
    bob_page.get_by_role("button", name="Post comment").click()
    bob_page.get_by_label("Note").fill("ship it")
    bob_page.get_by_role("button", name="Approve").click()
    expect(bob_page.get_by_label("Review state")).to_have_text("Approved")
    bob_page.get_by_label("Promotion note").fill("canary next")
    bob_page.get_by_role("button", name="Promote checkpoint").click()
    expect(bob_page.get_by_role("status", name="Promotion")).to_contain_text("Promoted")
    assert Promotion.objects.get().report_id == report.pk

    # Alice never reloads: the team's socket brings the reply and the approval.
    expect(alice.get_by_role("list", name="Comments")).to_contain_text("level 3 improved most")
    expect(alice.get_by_label("Review state")).to_have_text("Approved")
    expect(alice.get_by_role("list", name="Reviews")).to_contain_text("bob approved: ship it")
    expect(alice.get_by_role("status", name="Promotion")).to_contain_text("by bob")
    screenshot(alice, "report-approved")
