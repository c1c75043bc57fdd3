"""Training on an environment in real Chromium, against the production stack.

A guess-number family is defined in the browser as played by its environment (higher/lower
feedback, a turn limit), frozen into a pool version, and judged by a verifier composed from
its kind; the wizard shows the family's environment and launches a short GRPO run of the
built-in tiny model on it; a real Celery worker trains on episodes; the rollout inspector
shows a stored episode as a conversation, turn by turn, with each turn's verdict.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from experiments.models import Rollout, Run, RunState, Worker
from tasks_app.models import PoolVersion
from tasks_app.services import curricula
from tests.conftest import celery_worker
from tests.e2e.conftest import login, screenshot
from tests.experiments.runs_setup import models_dir  # noqa: F401 (fixture: the tiny model)
from tests.web_server import database_url, web_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
MAX_TURNS = 4


@pytest.fixture
def stack_env(redis_url, tmp_path, models_dir) -> dict[str, str]:  # noqa: F811
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CRUCIBLE_VAR_DIR": str(tmp_path),
        "CRUCIBLE_MODELS_DIR": str(models_dir),
        "WORKER_HEARTBEAT_SECONDS": "1",
        "DJANGO_SETTINGS_MODULE": "crucible.settings.base",
    }


@pytest.fixture
def asgi_page(browser, stack_env) -> Iterator[Page]:
    # The test settings: the users this test signs in with were hashed by them.
    with web_server({**stack_env, "DJANGO_SETTINGS_MODULE": "crucible.settings.test"}) as server:
        context = browser.new_context(base_url=server.url, viewport={"width": 1360, "height": 1400})
        context.set_default_timeout(20_000)
        yield context.new_page()
        context.close()


@pytest.fixture
def training_worker(stack_env, redis_url) -> Iterator[subprocess.Popen]:
    import redis  # only this fixture needs a client of its own

    redis.Redis.from_url(redis_url).delete("gpu")  # nothing left over from another test
    with celery_worker(stack_env, queues="gpu,cpu,default") as process:
        deadline = time.monotonic() + 90
        while not Worker.objects.filter(stopped_at=None, queues__contains=["gpu"]).exists():
            if process.poll() is not None:
                pytest.fail(process.stdout.read().decode()[-3000:])
            assert time.monotonic() < deadline, "the worker never reported"
            time.sleep(0.3)
        yield process


def define_family(page: Page) -> None:
    """A guess-number family played as its environment, with a frozen pool version."""
    page.goto("/task-families")
    page.get_by_role("button", name="New family").first.click()
    page.get_by_label("Name").fill("Guesses")
    page.get_by_label("Kind").select_option("guess-number")
    page.get_by_label("Played as").select_option("guess-number")
    expect(page.get_by_label("Max turns")).to_have_value("7")  # the kind's default limit
    page.get_by_label("Max turns").fill("99")
    page.get_by_role("button", name="Create family").click()
    # A limit out of range comes back under its field.
    expect(page.get_by_text("must be an integer from 1 to 64")).to_be_visible()
    page.get_by_label("Max turns").fill(str(MAX_TURNS))
    page.get_by_role("button", name="Create family").click()
    expect(page.get_by_role("heading", level=1, name="Guesses")).to_be_visible()
    expect(page.get_by_label("How it is played")).to_contain_text(f"episodes of guess-number (≤ {MAX_TURNS} turns")
    for level in range(2, 7):
        page.get_by_label(f"Level {level}", exact=True).fill("40" if level <= 3 else "0")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("table", name="Sample tasks")).to_contain_text("guess ")
    page.get_by_role("button", name="Freeze version").click()
    expect(page.get_by_role("status").filter(has_text="Froze version")).to_be_visible()
    screenshot(page, "episode-family")


def compose_verifier(page: Page) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Verifiers").click()
    page.get_by_role("button", name="New verifier").click()
    page.get_by_label("Name").fill("Last guess")
    page.get_by_label("Start from").select_option("guess-number")
    page.get_by_role("button", name="Create verifier").click()
    expect(page.get_by_role("heading", name="Last guess")).to_be_visible()


def test_a_family_played_as_an_environment_trains_on_episodes_seen_as_conversations(
    asgi_page, e2e_user, training_worker
):
    page = asgi_page
    login(page)
    define_family(page)
    compose_verifier(page)
    version = PoolVersion.objects.get(family__slug="guesses")
    curricula.create_curriculum(
        e2e_user,
        version.family.team,
        name="Guess ramp",
        slug="guess-ramp",
        description="Small intervals.",
        config={"families": [{"version": version.pk, "weight": 1}], "window": 8},
    )

    page.goto("/experiments/new")
    page.get_by_role("radio", name=re.compile("Guess ramp")).check()
    family = page.get_by_role("group", name=re.compile("Family guesses"))
    expect(family.get_by_label("Environment guess-number")).to_contain_text(f"≤ {MAX_TURNS} turns")
    expect(family.get_by_label(re.compile("Verifier for pool version"))).to_contain_text(re.compile(r"Last.Guess · v1", re.I))
    screenshot(page, "episode-wizard")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Base model").select_option("tiny-digit-sort")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("max_steps", exact=True).fill("3")
    page.get_by_label("prompts_per_step", exact=True).fill("4")
    page.get_by_label("group_size", exact=True).fill("4")
    page.get_by_role("button", name="Review").click()
    page.get_by_label("Name").fill("Guessing, GRPO")
    page.get_by_role("button", name="Create and launch").click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    run_id = int(page.url.rsplit("/", 1)[1])

    expect(page.get_by_text("Succeeded").first).to_be_visible(timeout=120_000)
    assert Run.objects.get(pk=run_id).state == RunState.SUCCEEDED
    stored = Rollout.objects.filter(run_id=run_id).first()
    assert stored is not None and stored.messages and stored.messages[0]["role"] == "user"

    page.get_by_role("link", name="Rollouts").click()
    episode = page.get_by_role("list", name=re.compile("Episode of sample")).first
    expect(episode).to_be_visible()
    first_turn = episode.get_by_role("listitem", name="Turn 1")
    expect(first_turn).to_contain_text("Assistant")
    expect(first_turn.locator(".badge")).to_have_text(re.compile("clean turn|invalid_move"))
    turns = episode.get_by_role("listitem", name=re.compile(r"^Turn \d+$"))
    assert 1 <= turns.count() <= MAX_TURNS
    screenshot(page, "episode-rollouts")
