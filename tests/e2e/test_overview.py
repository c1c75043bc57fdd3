"""The overview in real Chromium: a new team's first steps, its counts, and the activity feed."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot


def test_it_walks_a_new_team_through_its_first_steps(signed_in_page, e2e_user):  # type: ignore[no-untyped-def]
    from tasks_app.services import verifiers

    verifiers.create_verifier(e2e_user, e2e_user.teams.get(), name="Exact answer", slug="exact")
    page = signed_in_page
    page.goto("/")

    steps = page.get_by_role("region", name="First steps")
    expect(steps.get_by_role("listitem")).to_have_text(
        [
            "Create a task family",
            "Freeze a pool version",
            "Build a verifier (done)",
            "Define a curriculum",
        ]
    )
    glance = page.get_by_role("region", name="At a glance")
    expect(glance.get_by_role("link", name="Runs")).to_have_attribute("href", "/runs")
    screenshot(page, "overview-first-steps")

    steps.get_by_role("link", name="Create a task family").click()
    expect(page).to_have_url(re.compile(r"/task-families$"))


def test_it_tells_the_teams_activity_with_links_to_what_still_exists(signed_in_page, e2e_user):  # type: ignore[no-untyped-def]
    from tasks_app.services import pools, verifiers

    team = e2e_user.teams.get()
    family = pools.create_family(e2e_user, team, name="Arithmetic", slug="arith", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 10}, seed=0)
    pools.version_from_tasks(e2e_user, family, tasks, source="generator", detail={}, near=False)
    gone = verifiers.create_verifier(e2e_user, team, name="Scratch", slug="scratch")
    verifiers.delete_verifier(e2e_user, gone)
    page = signed_in_page
    page.goto("/")

    feed = page.get_by_role("region", name="Recent activity")
    expect(feed).to_contain_text("alice created task family “Arithmetic”")
    expect(feed).to_contain_text("alice deleted verifier “Scratch”")
    expect(feed.get_by_role("link", name="Scratch")).to_have_count(0)
    glance = page.get_by_role("region", name="At a glance")
    expect(glance.get_by_role("definition")).to_have_text(["1", "1", "0", "0", "0", "0"])
    screenshot(page, "overview-activity")

    feed.get_by_role("link", name="Arithmetic", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/task-families/{family.pk}$"))
    expect(page.get_by_role("heading", name="Arithmetic", exact=True)).to_be_visible()
