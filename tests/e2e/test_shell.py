"""The web app shell in real Chromium: sign-in, navigation, team switcher, tokens, team settings."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import PASSWORD, screenshot

NAV = ["Overview", "Task families", "Verifiers", "Curricula", "Experiments", "Reports", "Deployments"]


def test_it_shows_the_servers_message_on_a_wrong_password(page, e2e_user):  # type: ignore[no-untyped-def]
    page.goto("/login")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()

    expect(page.get_by_role("alert")).to_contain_text("Wrong username or password.")
    expect(page).to_have_url(re.compile(r"/login$"))
    screenshot(page, "login-error")


def test_it_signs_in_to_the_overview_with_navigation_and_teams(signed_in_page):  # type: ignore[no-untyped-def]
    page = signed_in_page

    expect(page.get_by_role("heading", name="Welcome, alice")).to_be_visible()
    expect(page.get_by_role("banner")).to_contain_text("Crucible")
    expect(page.get_by_role("button", name="Switch team")).to_contain_text("Reasoning")
    nav = page.get_by_role("navigation", name="Main")
    for label in [*NAV, "API tokens", "Team"]:
        expect(nav.get_by_role("link", name=label, exact=True)).to_be_visible()
    expect(page.get_by_role("region", name="Your teams")).to_contain_text("reasoning")
    expect(page.get_by_role("region", name="System health")).to_contain_text("Database")
    screenshot(page, "overview")


def test_it_keeps_client_side_routes_on_reload(signed_in_page):  # type: ignore[no-untyped-def]
    page = signed_in_page
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Experiments").click()
    expect(page.get_by_role("heading", name="Experiments", exact=True, level=1)).to_be_visible()

    page.reload()
    expect(page).to_have_url(re.compile(r"/experiments$"))
    expect(page.get_by_role("heading", name="No experiments yet")).to_be_visible()


def test_it_sends_anonymous_visitors_to_login_and_back(page, e2e_user):  # type: ignore[no-untyped-def]
    page.goto("/settings/team")
    expect(page).to_have_url(re.compile(r"/login\?next=%2Fsettings%2Fteam$"))

    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/settings/team$"))


def test_it_creates_a_token_shows_its_secret_once_and_revokes_it(signed_in_page):  # type: ignore[no-untyped-def]
    page = signed_in_page
    page.goto("/settings/tokens")
    page.get_by_label("Name").fill("ci")
    page.get_by_label("Team", exact=True).select_option("reasoning")
    page.get_by_label("Expires in (days)").fill("30")
    page.get_by_role("button", name="Create token").click()

    secret = page.get_by_label("New token secret")
    expect(secret).to_be_visible()
    value = secret.inner_text()
    assert len(value) > 20
    expect(page.get_by_role("cell", name="ci", exact=True)).to_be_visible()
    screenshot(page, "tokens")

    page.get_by_role("button", name="I have copied it").click()
    expect(page.get_by_text(value)).to_have_count(0)
    page.reload()
    expect(page.get_by_role("cell", name="ci", exact=True)).to_be_visible()
    expect(page.get_by_text(value)).to_have_count(0)

    page.get_by_role("button", name="Revoke ci").click()
    dialog = page.get_by_role("alertdialog")
    dialog.get_by_role("button", name="Revoke token").click()
    expect(dialog).to_have_count(0)
    expect(page.get_by_text("Revoked")).to_be_visible()
    expect(page.get_by_role("button", name="Revoke ci")).to_have_count(0)


def test_it_lets_an_admin_add_a_member_and_create_a_team(signed_in_page, django_user_model):  # type: ignore[no-untyped-def]
    django_user_model.objects.create_user("bob", "bob@example.com", PASSWORD)
    page = signed_in_page
    page.goto("/settings/team")
    expect(page.get_by_role("heading", name="Members of Reasoning")).to_be_visible()

    page.get_by_label("Username").fill("nobody")
    page.get_by_role("button", name="Add member").click()
    expect(page.get_by_role("alert")).to_be_visible()

    page.get_by_label("Username").fill("bob")
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_role("button", name="Add member").click()
    expect(page.get_by_role("cell", name="bob", exact=True)).to_be_visible()
    screenshot(page, "team")

    page.get_by_label("Team name").fill("Evals")
    page.get_by_role("button", name="Create team").click()
    expect(page.get_by_role("button", name="Switch team")).to_contain_text("Evals")
    expect(page.get_by_role("heading", name="Members of Evals")).to_be_visible()


def test_it_switches_teams_and_logs_out(signed_in_page, e2e_user):  # type: ignore[no-untyped-def]
    from crucible.accounts import services

    services.create_team(e2e_user, "Evals", "evals")
    page = signed_in_page
    page.reload()

    page.get_by_role("button", name="Switch team").click()
    page.get_by_role("menuitemradio", name=re.compile("Evals")).click()
    expect(page.get_by_role("button", name="Switch team")).to_contain_text("Evals")
    page.reload()
    expect(page.get_by_role("button", name="Switch team")).to_contain_text("Evals")

    page.get_by_role("button", name="User menu").click()
    page.get_by_role("menuitem", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login$"))
