"""Real Chromium against a live server that serves the built single-page app.

Chromium is Debian's (/usr/bin/chromium), driven by the Playwright Python package; it is
never downloaded. Without it (or without a built frontend) these tests skip, saying why,
unless REQUIRE_SERVICES=1, where they fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import need_service

# Playwright's sync API keeps an event loop in this thread; the ORM calls our fixtures make
# between browser steps are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
FRONTEND_INDEX = Path(__file__).resolve().parents[2] / "frontend" / "dist" / "index.html"
PASSWORD = "correct horse battery"
SCREENSHOTS = Path(os.environ.get("E2E_SCREENSHOTS", "/tmp/crucible-e2e"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).exists()):
        need_service(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    if not FRONTEND_INDEX.exists():
        need_service("the frontend is not built (make frontend)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


@pytest.fixture
def e2e_user(transactional_db, django_user_model):  # type: ignore[no-untyped-def]
    from crucible.accounts import services

    user = django_user_model.objects.create_user("alice", "alice@example.com", PASSWORD)
    services.create_team(user, "Reasoning", "reasoning")
    return user


@pytest.fixture
def page(browser, live_server):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1360, "height": 860})
    context.set_default_timeout(30_000)
    tab = context.new_page()
    yield tab
    context.close()


def login(page, username: str = "alice", password: str = PASSWORD) -> None:  # type: ignore[no-untyped-def]
    """Sign in through the real login form."""
    page.goto("/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: not url.endswith("/login"))


@pytest.fixture
def signed_in_page(page, e2e_user):  # type: ignore[no-untyped-def]
    login(page)
    return page


def screenshot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def full_screenshot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    """The whole page: the shell scrolls inside <main>, so the window grows to it first."""
    height = page.evaluate("document.querySelector('.main-inner').scrollHeight + 80")
    page.set_viewport_size({"width": 1360, "height": max(860, int(height))})
    path = screenshot(page, name)
    page.set_viewport_size({"width": 1360, "height": 860})
    return path
