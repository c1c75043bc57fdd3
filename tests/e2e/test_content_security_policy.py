"""Every page the platform serves works in real Chromium under its content security policy:
the app, the admin, both API docs and an exported report, with no violation reported."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import PASSWORD, login
from tests.experiments.reports_setup import finished_job

pytestmark = pytest.mark.django_db(transaction=True)

# Runs before any page script and is not subject to the page's policy: it records what the
# policy blocked, as the browser reports it.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"}`);
});
"""

REDOC_BADGE = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@pytest.fixture
def watched(page: Page) -> Page:
    page.add_init_script(RECORD_VIOLATIONS)
    return page


def violations(page: Page) -> list[str]:
    return page.evaluate("window.__violations")


def test_it_runs_the_app_under_its_policy(watched, e2e_user):
    login(watched)  # the login form's POST passes the CSRF check the SPA's way
    expect(watched.get_by_role("heading", name="Welcome, alice")).to_be_visible()
    expect(watched.get_by_role("region", name="System health")).to_contain_text("Database")
    watched.get_by_role("navigation", name="Main").get_by_role("link", name="Experiments").click()
    expect(watched.get_by_role("heading", name="No experiments yet")).to_be_visible()
    assert violations(watched) == []


def test_it_runs_the_admin_under_its_policy(watched, django_user_model):
    django_user_model.objects.create_superuser("root", "root@example.com", PASSWORD)
    watched.goto("/admin/")
    watched.get_by_label("Username").fill("root")
    watched.get_by_label("Password").fill(PASSWORD)
    watched.get_by_role("button", name="Log in").click()
    expect(watched.get_by_role("link", name="Teams", exact=True)).to_be_visible()
    # The admin's own stylesheet applied: its header is not the browser's default white.
    header = watched.locator("#header").evaluate("e => getComputedStyle(e).backgroundColor")
    assert header not in {"rgba(0, 0, 0, 0)", "rgb(255, 255, 255)"}
    assert violations(watched) == []


def test_it_renders_both_api_docs_under_its_policy(watched):
    watched.goto("/api/docs/")
    expect(watched.locator(".swagger-ui .info .title")).to_contain_text(
        "Crucible API", timeout=30_000
    )
    expect(watched.locator(".opblock").first).to_be_visible()
    assert violations(watched) == []
    watched.goto("/api/redoc/")
    # ReDoc renders the whole schema before it shows anything: give it time.
    expect(watched.get_by_role("heading", name="Crucible API")).to_be_visible(timeout=30_000)
    expect(watched.get_by_placeholder("Search...")).to_be_visible()
    # Only ReDoc's "powered by" badge, which it fetches from its own site, stays out.
    assert violations(watched) == [f"img-src blocked {REDOC_BADGE}"]


def test_it_shows_an_exported_report_under_its_policy(watched, e2e_user, client):
    team = e2e_user.memberships.get().team
    base = finished_job(e2e_user, team, [0] * 30, "base")
    candidate = finished_job(e2e_user, team, [4] * 30)
    client.force_login(e2e_user)
    made = client.post(
        "/api/v1/reports/", {"candidate": candidate.pk, "baseline": base.pk},
        content_type="application/json",
    )  # fmt: skip
    exported = client.get(f"/api/v1/reports/{made.json()['id']}/export/")
    # The download, shown by the browser with the headers it was served with.
    headers = {k: v for k, v in exported.items() if k.lower() != "content-disposition"}
    watched.route(
        "**/exported-report", lambda route: route.fulfill(
            status=200, headers=headers, body=exported.content
        ),
    )  # fmt: skip
    watched.goto("/exported-report")
    expect(watched.get_by_role("heading", name="Families")).to_be_visible()
    # Its inline stylesheet applied: the table's header cells are upper-cased by it.
    cell = watched.locator("th").first.evaluate("e => getComputedStyle(e).textTransform")
    assert cell == "uppercase"
    assert violations(watched) == []
