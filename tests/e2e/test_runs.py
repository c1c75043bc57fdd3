"""Experiments and runs in real Chromium, against the production stack.

The wizard creates and launches an experiment on the demo family (digit-sort) with the
built-in tiny model; a real Celery worker trains it; the run page's charts grow while it
trains, over the run's websocket. pytest-django's live server speaks WSGI only, so the app
is served here by the production web server (ASGI) in its own process, on the same test
database and Redis as the worker.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from experiments.models import Run, RunState, Worker
from tests.conftest import celery_worker
from tests.e2e.conftest import login, screenshot
from tests.experiments.runs_setup import digit_verifier, digit_version
from tests.web_server import database_url, web_server

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)
TRAIN_STEPS = 400
"""Long enough (tens of seconds on a CPU) to watch the charts move before the run ends."""


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory) -> Path:
    """An empty models folder: the worker builds the built-in tiny model with its warm start
    on first use, as it does on a fresh install."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture
def stack_env(redis_url, tmp_path, models_dir) -> dict[str, str]:
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
def asgi_server(stack_env) -> Iterator[str]:
    """The web server (crucible.serve: HTTP, the built app and websockets) on a free port."""
    # The test settings: the users this test signs in with were hashed by them.
    env = {**stack_env, "DJANGO_SETTINGS_MODULE": "crucible.settings.test"}
    with web_server(env) as server:
        yield server.url


@pytest.fixture
def training_worker(stack_env, redis_url) -> Iterator[subprocess.Popen]:
    import redis

    redis.Redis.from_url(redis_url).delete("gpu")  # nothing left over from another test
    with celery_worker(stack_env, queues="gpu,cpu,default") as process:
        deadline = time.monotonic() + 90
        while not Worker.objects.filter(stopped_at=None, queues__contains=["gpu"]).exists():
            if process.poll() is not None:
                pytest.fail(process.stdout.read().decode()[-3000:])
            assert time.monotonic() < deadline, "the worker never reported"
            time.sleep(0.3)
        yield process


@pytest.fixture
def asgi_page(browser, asgi_server) -> Iterator[Page]:
    # Tall enough that a full page of charts fits one screenshot (the app scrolls inside).
    context = browser.new_context(base_url=asgi_server, viewport={"width": 1360, "height": 1500})
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def demo_curriculum(user) -> None:  # type: ignore[no-untyped-def]
    from tasks_app.services import curricula

    team = user.memberships.get().team
    version = digit_version(user, team, counts={2: 60, 3: 60, 4: 60})
    digit_verifier(user, team)
    curricula.create_curriculum(
        user,
        team,
        name="Digit ramp",
        slug="digit-ramp",
        description="Two digits to four as success rises.",
        config={"families": [{"version": version.pk, "weight": 1}], "window": 16},
    )


def points(page: Page, panel: str) -> int:
    return int(page.locator(f'[data-panel="{panel}"] figure').get_attribute("data-points") or 0)


def fill_wizard(page: Page, group_size: str) -> None:
    page.goto("/experiments")
    expect(page.get_by_text("No experiments yet")).to_be_visible()
    page.get_by_role("link", name="New experiment").first.click()
    page.get_by_role("radio", name=re.compile("Digit ramp")).check()
    family = page.get_by_role("group", name=re.compile("Family digits"))
    expect(family.get_by_label(re.compile("Verifier for pool version"))).to_contain_text(
        "Exact-Sort · v1"
    )
    screenshot(page, "experiment-wizard-curriculum")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Base model").select_option("tiny-digit-sort")
    screenshot(page, "experiment-wizard-model")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("max_steps", exact=True).fill(str(TRAIN_STEPS))
    page.get_by_label("prompts_per_step", exact=True).fill("8")
    page.get_by_label("group_size", exact=True).fill(group_size)
    page.get_by_role("button", name="Review").click()
    page.get_by_label("Name").fill("Digit sort, GRPO")
    screenshot(page, "experiment-wizard-review")


def test_it_launches_from_the_wizard_and_charts_the_run_live(asgi_page, e2e_user, training_worker):
    demo_curriculum(e2e_user)
    page = asgi_page
    login(page)

    # A hyper-parameter the engine refuses comes back next to its field, on its step.
    fill_wizard(page, group_size="1")
    page.get_by_role("button", name="Create and launch").click()
    field = page.get_by_label("group_size", exact=True)
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text("GRPO needs at least 2 completions per prompt")).to_be_visible()
    screenshot(page, "experiment-wizard-field-error")

    field.fill("8")
    page.get_by_role("button", name="Review").click()
    page.get_by_role("button", name="Create and launch").click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    run_id = int(page.url.rsplit("/", 1)[1])

    # Live over the websocket: the stream says so and the reward chart gains points.
    # The worker first builds and warm-starts the tiny model (about a minute on a quiet CPU).
    expect(page.locator('[data-stream="live"]')).to_be_visible(timeout=300_000)
    expect(page.locator('[data-panel="reward"] figure')).to_be_visible(timeout=60_000)
    first = points(page, "reward")
    page.wait_for_function(
        "([n]) => +document.querySelector('[data-panel=\"reward\"] figure').dataset.points > n",
        arg=[first],
        timeout=60_000,
    )
    assert Run.objects.get(pk=run_id).state == RunState.RUNNING, "the charts moved while training"
    expect(page.get_by_role("progressbar", name="Training progress")).to_have_attribute(
        "aria-valuenow", re.compile(r"^[1-9]\d*$")
    )
    screenshot(page, "run-live")

    expect(page.get_by_text("Succeeded").first).to_be_visible(timeout=300_000)
    expect(page.locator('[data-stream="closed"]')).to_be_visible()
    assert points(page, "reward") >= TRAIN_STEPS  # at least reward/mean at every step
    screenshot(page, "run-succeeded")
    page.get_by_role("link", name="Rollouts").click()
    expect(page.get_by_role("article").first).to_contain_text("sort ")
    page.locator(".rn-layers-toggle").first.click()
    expect(page.get_by_role("table", name="Layered verdict").first).to_contain_text("semantic")
    screenshot(page, "run-samples")
    page.get_by_role("link", name="Checkpoints").click()
    expect(page.get_by_text(f"step-{TRAIN_STEPS:06d}")).to_be_visible()
    screenshot(page, "run-checkpoints")
    page.get_by_role("link", name="Logs").click()
    expect(page.get_by_label("Run log")).to_contain_text(f"step {TRAIN_STEPS}/{TRAIN_STEPS}")
    screenshot(page, "run-logs")

    # A second run of the same experiment, cancelled from its page.
    page.get_by_role("link", name="Digit sort, GRPO").first.click()
    expect(page.get_by_role("link", name="Run #1")).to_be_visible()
    screenshot(page, "experiment-detail")
    page.get_by_role("button", name="Launch run").first.click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    page.get_by_role("button", name="Cancel run").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Cancel run").click()
    expect(page.get_by_text("Cancelled").first).to_be_visible(timeout=120_000)

    # Both runs, side by side.
    page.goto("/runs")
    expect(page.get_by_role("link", name="Digit sort, GRPO #2")).to_be_visible()
    screenshot(page, "runs-list")
    page.get_by_role("checkbox", name="Select Digit sort, GRPO #1").check()
    page.get_by_role("checkbox", name="Select Digit sort, GRPO #2").check()
    page.get_by_role("button", name="Compare 2 runs").click()
    reward = page.locator('[data-metric="reward/mean"] figure')
    expect(reward).to_have_attribute("data-series", "2")
    expect(page.get_by_role("table", name="Final metrics")).to_contain_text("reward/mean")
    screenshot(page, "runs-compare")
