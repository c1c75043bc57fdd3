"""Live control of a run in real Chromium, against the production stack (uvicorn, Celery
worker, PostgreSQL, Redis): pause and resume a training run from its page, change its
curriculum, and see the change as a marker on its charts, live over the run's websocket.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from experiments.models import Checkpoint, MetricPoint, Run, RunEvent, RunState
from experiments.services import experiments
from tests.e2e.conftest import login, screenshot
from tests.e2e.test_runs import (  # noqa: F401 (fixtures)
    asgi_page,
    asgi_server,
    stack_env,
    training_worker,
)
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures: a warm-started tiny model)
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)

pytestmark = pytest.mark.django_db(transaction=True)
TRAIN_STEPS = 3000
"""More than the test needs: it pauses, resumes and steers the run, then cancels it."""


def make_experiment(user) -> int:  # type: ignore[no-untyped-def]
    team = user.memberships.get().team
    version = digit_version(user, team, counts={2: 40, 3: 40, 4: 40})
    config = config_for(
        version,
        digit_verifier(user, team),
        hyperparameters={"max_steps": TRAIN_STEPS, "prompts_per_step": 8, "group_size": 4},
        rollout_groups=2,
    )
    # Every task at level 2 and a policy that keeps it there: only the change moves it.
    config["curriculum"].update(dynamic=False, floor=0.0)
    config["curriculum"]["families"][0]["initial"] = [1, 0, 0]
    return experiments.create_experiment(user, team, name="Steered sort", config=config).pk


def state_of(run_id: int) -> str:
    return Run.objects.get(pk=run_id).state


def test_it_pauses_resumes_and_marks_a_curriculum_change_on_the_charts(
    asgi_page,  # noqa: F811
    e2e_user,
    training_worker,  # noqa: F811
):
    experiment_id = make_experiment(e2e_user)
    page: Page = asgi_page
    login(page)
    page.goto(f"/experiments/{experiment_id}")
    page.get_by_role("button", name="Launch run").first.click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    run_id = int(page.url.rsplit("/", 1)[1])
    expect(page.locator('[data-stream="live"]')).to_be_visible(timeout=300_000)
    expect(page.locator('[data-panel="curriculum:digits"] figure')).to_be_visible(timeout=60_000)

    # Pause: the worker stops at its next step with a checkpoint and gives its slot back.
    page.get_by_role("button", name="Pause run").click()
    notice = page.get_by_role("status").filter(has_text="Paused at step")
    expect(notice).to_be_visible(timeout=60_000)
    expect(notice).to_contain_text("Paused by alice.")
    paused = Run.objects.get(pk=run_id)
    assert paused.state == RunState.PAUSED and paused.worker == ""
    assert Checkpoint.objects.filter(run_id=run_id, step=paused.step).exists()
    screenshot(page, "run-paused")

    page.get_by_role("button", name="Resume run").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Resume run").click()
    expect(page.locator('[data-stream="live"]')).to_be_visible(timeout=60_000)
    # Back in the queue; the worker continues it from its checkpoint and the page follows.
    expect(page.get_by_role("region", name="Run status")).to_contain_text("Running", timeout=60_000)

    # Steer: all of the curriculum's mass on level 4, from the Control tab.
    page.get_by_role("link", name="Control").click()
    page.get_by_label("digits level 2 %").fill("0")
    page.get_by_label("digits level 4 %").fill("100")
    page.get_by_role("button", name="Apply at the next step").click()
    events = page.get_by_role("table", name="Control events")
    change = events.locator('tr[data-event-kind="curriculum"]')
    expect(change).to_contain_text("Curriculum: digits levels 0/0/100%")
    expect(change).not_to_contain_text("waiting for the next step", timeout=60_000)
    screenshot(page, "run-control")

    # The charts mark it, live, and the distribution moved at the next step.
    page.get_by_role("link", name="Charts").click()
    curriculum = page.locator('[data-panel="curriculum:digits"] figure')
    expect(curriculum).to_have_attribute("data-markers", "3")  # pause, resume, change
    expect(curriculum.get_by_role("list", name="Events on this chart")).to_contain_text(
        "Curriculum: digits levels 0/0/100%"
    )
    applied = RunEvent.objects.get(run_id=run_id, kind="curriculum").applied_at_step
    after = MetricPoint.objects.filter(run_id=run_id, key="curriculum/digits/d4", step=applied + 1)
    deadline = time.monotonic() + 60
    while not after.exists():
        assert time.monotonic() < deadline, "no step after the change"
        time.sleep(0.3)
    assert after.get().value == 1.0  # the sampled distribution moved within one step
    d4 = curriculum.locator('li[data-series-key="curriculum/digits/d4"] .ts-chart-value')
    expect(d4).to_have_text("1")
    screenshot(page, "run-markers")
    assert state_of(run_id) == RunState.RUNNING

    page.get_by_role("button", name="Cancel run").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Cancel run").click()
    expect(page.get_by_text("Cancelled").first).to_be_visible(timeout=120_000)
