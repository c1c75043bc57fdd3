"""The whole loop in real Chromium, from a fresh `make run`, with no API call from the test.

The platform starts as the Makefile's ``run`` target starts it (migrate, bootstrap, the
supervisor of the web server, the Celery worker and the serving worker) on the embedded
default (SQLite, the filesystem broker) in a fresh var directory. Everything else is the
browser's: the admin (password from var/admin_password) defines a family and freezes a pool,
makes a verifier and a curriculum, launches an experiment from a preset and watches it train;
the worker is killed with SIGKILL mid-run and the run page shows the lost worker and the
resumption; the checkpoint is evaluated and compared with the base model, the report
commented; a second user, made in the site admin and added to the team on the Team page,
approves it; the checkpoint is promoted, registered and deployed, and a canary of an earlier
checkpoint is decided by the traffic of ``manage.py replay_traffic`` as the README runs it.
Each step leaves a screenshot, ``$E2E_SCREENSHOTS/whole-loop/NN-step.png``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.crucible.test_celery_worker import base_env
from tests.crucible.test_supervise import READY, Log, group_alive, healthy, wait_for
from tests.e2e.conftest import SCREENSHOTS, login
from tests.experiments.runs_setup import models_dir  # noqa: F401 (fixture: the tiny model)
from tests.web_server import free_port

ROOT = Path(__file__).resolve().parents[2]
SHOTS = SCREENSHOTS / "whole-loop"
STALE_S = 8
"""RUN_STALE_SECONDS: the killed worker's run is taken for lost after this long."""
STEPS, CHECKPOINT_EVERY = 30, 5
"""A short run (a loaded CPU takes seconds a step), a checkpoint every 5 steps so the kill costs
little; the wizard warns that so few prompts will not move the policy, and says so on screen."""
BOB_PASSWORD = "second pair of eyes"


@dataclass
class Platform:
    url: str
    env: dict[str, str]
    log: Log
    var: Path


@pytest.fixture
def platform(tmp_path: Path, models_dir: Path) -> Iterator[Platform]:  # noqa: F811
    """`make run` on a free port: migrate, bootstrap, then the supervisor. The built-in tiny
    model comes prebuilt (a short warm start, as in the other stack tests) instead of being
    built on first use, which takes minutes on a loaded machine; everything else is fresh."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    var = tmp_path / "var"
    env = base_env(
        var, PYTHONUNBUFFERED="1", PLATFORM_URL=url, CRUCIBLE_MODELS_DIR=str(models_dir),
        WORKER_HEARTBEAT_SECONDS="1", RUN_STALE_SECONDS=str(STALE_S),
    )  # fmt: skip
    for command in (["migrate", "--noinput"], ["bootstrap", "--url", url]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT, env=env, check=True, capture_output=True, timeout=300,
        )  # fmt: skip
    log = Log(tmp_path / "supervise.log")
    with open(log.path, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "crucible.supervise", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        for name in READY:
            wait_for(lambda n=name: log.ready_count(n) >= 1, f"{name} to start", timeout_s=300)
        wait_for(lambda: healthy(url), "/healthz")
        yield Platform(url, env, log, var)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for name in READY:
            for pid in log.pids(name):
                if group_alive(pid):
                    os.killpg(pid, signal.SIGKILL)


class Shots:
    """NN-step.png, numbered in the order the loop takes them, each the whole page."""

    def __init__(self) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        for old in SHOTS.glob("*.png"):
            old.unlink()
        self.count = 0

    def __call__(self, page: Page, step: str) -> None:
        self.count += 1
        height = page.evaluate("(document.querySelector('.main-inner')?.scrollHeight ?? 0) + 80")
        page.set_viewport_size({"width": 1360, "height": max(900, min(int(height), 6000))})
        page.screenshot(path=str(SHOTS / f"{self.count:02d}-{step}.png"), full_page=True)
        page.set_viewport_size({"width": 1360, "height": 900})


def new_page(browser, url: str) -> Page:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=url, viewport={"width": 1360, "height": 900})
    context.set_default_timeout(60_000)
    return context.new_page()


def define(page: Page, shot: Shots) -> None:
    """Family, pool version, verifier and curriculum, each from its page."""
    page.goto("/task-families")
    page.get_by_role("button", name="New family").first.click()
    page.get_by_label("Name").fill("Digits")
    page.get_by_label("Kind").select_option("digit-sort")
    page.get_by_role("button", name="Create family").click()
    expect(page.get_by_role("heading", level=1, name="Digits")).to_be_visible()
    for level in range(2, 9):
        page.get_by_label(f"Level {level}", exact=True).fill("60" if level <= 4 else "0")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("table", name="Sample tasks")).to_contain_text("sort ")
    shot(page, "family")
    page.get_by_role("button", name="Freeze version").click()
    expect(page.get_by_role("status").filter(has_text="Froze version")).to_be_visible()
    expect(page.get_by_role("list", name="Versions")).to_contain_text("v1")
    shot(page, "pool")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Verifiers").click()
    page.get_by_role("button", name="New verifier").click()
    page.get_by_label("Name").fill("Exact sort")
    page.get_by_label("Start from").select_option("digit-sort")
    page.get_by_role("button", name="Create verifier").click()
    expect(page.get_by_role("heading", name="Exact sort")).to_be_visible()
    expect(page.get_by_role("listitem", name=re.compile(r"^Layer 1: "))).to_be_visible()
    shot(page, "verifier")

    page.goto("/curricula")
    page.get_by_role("link", name="New curriculum").first.click()
    page.get_by_label("Name").fill("Digit ramp")
    expect(page.get_by_role("group", name="Family 1").get_by_label("Pool version")).to_contain_text("v1")
    page.get_by_role("button", name="Create curriculum").click()
    expect(page).to_have_url(re.compile(r"/curricula/\d+$"))
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()
    shot(page, "curriculum")


def launch(page: Page, shot: Shots) -> int:
    """An experiment from the GRPO preset, a checkpoint every few steps; the run's id."""
    page.goto("/experiments")
    page.get_by_role("link", name="New experiment").first.click()
    page.get_by_role("radio", name=re.compile("Digit ramp")).check()
    family = page.get_by_role("group", name=re.compile("Family digits"))
    expect(family.get_by_label(re.compile("Verifier for pool version"))).to_contain_text("Exact sort")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Base model").select_option("tiny-digit-sort")
    page.get_by_role("button", name="Next").click()
    page.get_by_role("group", name="Presets").get_by_role("button", name="GRPO", exact=True).click()
    expect(page.get_by_test_id("preset-summary")).to_contain_text("Group-relative")
    page.get_by_label("max_steps", exact=True).fill(str(STEPS))
    page.get_by_label("prompts_per_step", exact=True).fill("4")
    page.get_by_label("group_size", exact=True).fill("4")
    page.get_by_label("checkpoint_every", exact=True).fill(str(CHECKPOINT_EVERY))
    shot(page, "experiment-preset")
    page.get_by_role("button", name="Review").click()
    page.get_by_label("Name").fill("Digit sort, GRPO")
    shot(page, "experiment-review")
    page.get_by_role("button", name="Create and launch").click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def step_of(page: Page) -> int:
    return int(page.get_by_role("progressbar", name="Training progress").get_attribute("aria-valuenow") or 0)


def train_through_a_lost_worker(page: Page, shot: Shots, platform: Platform) -> None:
    expect(page.locator('[data-stream="live"]')).to_be_visible(timeout=600_000)
    wait_for(lambda: step_of(page) > CHECKPOINT_EVERY + 2, "a checkpoint before the kill", 600)
    shot(page, "run-live")

    (worker,) = platform.log.pids("worker")[-1:]
    os.kill(worker, signal.SIGKILL)
    killed_at = step_of(page)
    wait_for(lambda: platform.log.pids("worker")[-1] != worker, "the supervisor to restart the worker")
    lost = page.locator(".rn-lost-worker")
    try:  # the warning lasts from the stale mark until the restarted worker re-queues the run
        expect(lost).to_be_visible(timeout=(STALE_S + 30) * 1000)
        shot(page, "run-worker-lost")
    except AssertionError:
        pass  # re-queued within a second of the mark: the events below still say it
    events = page.get_by_role("table", name="Control events")
    page.get_by_role("link", name="Control").click()
    expect(events).to_contain_text("Worker lost, re-queued", timeout=300_000)
    expect(events).to_contain_text(re.compile(r"Resumed from step \d+"), timeout=300_000)
    resumed = int(re.search(r"Resumed from step (\d+)", events.inner_text()).group(1))  # type: ignore[union-attr]
    assert 0 < resumed <= killed_at and resumed % CHECKPOINT_EVERY == 0
    shot(page, "run-resumed-events")
    page.get_by_role("link", name="Charts").click()
    expect(page.get_by_role("list", name="Events on this chart").first).to_contain_text(
        f"Resumed from step {resumed}"
    )
    expect(page.get_by_text("Succeeded").first).to_be_visible(timeout=900_000)
    shot(page, "run-succeeded")


def evaluate_and_compare(page: Page, shot: Shots) -> str:
    """The last checkpoint against the base model, from the Checkpoints tab; the report's path."""
    page.get_by_role("link", name="Checkpoints").click()
    last = page.get_by_role("row").filter(has_text=f"step-{STEPS:06d}")
    last.get_by_role("button", name="Evaluate and compare with the base model").click()
    queued = page.get_by_role("status").filter(has_text="Queued evaluation")
    expect(queued).to_be_visible()
    page.evaluate("document.querySelectorAll('.table-wrap').forEach((t) => { t.scrollLeft = 0; })")
    shot(page, "evaluate-queued")
    queued.get_by_role("link", name="compare them").click()
    form = page.get_by_role("form", name="Compare evaluations")
    expect(form).to_be_visible(timeout=600_000)  # offered once both evaluations succeeded
    expect(form.get_by_label("Baseline", exact=True)).not_to_have_value("")
    shot(page, "compare-evaluations")
    form.get_by_role("button", name="Make the report").click()
    page.wait_for_url(re.compile(r"/reports/\d+$"))
    expect(page.get_by_label("Headline")).to_be_visible()
    page.get_by_role("button", name="Submit for review").click()
    expect(page.get_by_label("Review state")).to_have_text("In review")
    page.get_by_role("textbox", name="Comment").fill(f"trained {STEPS} steps through a lost worker")
    page.get_by_role("button", name="Post comment").click()
    expect(page.get_by_role("list", name="Comments")).to_contain_text("through a lost worker")
    shot(page, "report-commented")
    return "/reports/" + page.url.rsplit("/", 1)[1]


def add_reviewer(page: Page, shot: Shots) -> None:
    """A second user: made in the site admin, added to the team on the Team page."""
    page.goto("/admin/auth/user/add/")
    page.locator("#id_username").fill("bob")
    page.locator("#id_password1").fill(BOB_PASSWORD)
    page.locator("#id_password2").fill(BOB_PASSWORD)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("bob")
    shot(page, "admin-user-added")
    page.goto("/settings/team")
    form = page.get_by_role("form", name="Add member")
    form.get_by_label("Username").fill("bob")
    form.get_by_label("Role").select_option("editor")
    form.get_by_role("button", name="Add member").click()
    expect(form.get_by_role("status")).to_contain_text("bob was added as Editor")
    shot(page, "team-member-added")


def approve(browser, platform: Platform, report: str, shot: Shots) -> None:  # type: ignore[no-untyped-def]
    bob = new_page(browser, platform.url)
    login(bob, "bob", BOB_PASSWORD)
    bob.goto(report)
    expect(bob.get_by_role("list", name="Comments")).to_contain_text("through a lost worker")
    bob.get_by_label("Note").fill("no family regressed past its threshold; on to a canary")
    bob.get_by_role("button", name="Approve").click()
    expect(bob.get_by_label("Review state")).to_have_text("Approved")
    shot(bob, "report-approved-by-bob")
    bob.context.close()


def promote_register_deploy(page: Page, report: str, shot: Shots) -> None:
    page.goto(report)
    expect(page.get_by_label("Review state")).to_have_text("Approved")
    page.get_by_label("Promotion note").fill("canary next")
    page.get_by_role("button", name="Promote checkpoint").click()
    expect(page.get_by_role("status", name="Promotion")).to_contain_text("Promoted")
    shot(page, "promoted")

    page.goto("/registry")
    page.get_by_label("Model name").fill("sorter")
    page.get_by_role("button", name="New model").click()
    page.get_by_role("link", name="sorter").click()
    run = page.get_by_label("Run", exact=True)
    run.select_option(label=run.locator("option").filter(has_text="Digit sort, GRPO · run 1").inner_text())
    checkpoint = page.get_by_label("Checkpoint", exact=True)
    checkpoint.select_option(label=checkpoint.locator("option").filter(has_text="promoted").first.inner_text())
    page.get_by_role("button", name="Register").click()
    first = page.get_by_role("listitem", name="Version 1")
    expect(first.get_by_text("Promoted")).to_be_visible()
    first.get_by_role("button", name="Set alias").click()  # production, the default once promoted
    expect(page.get_by_label("Model aliases")).to_contain_text("production → v1")
    # The canary's candidate: the checkpoint before it (the run keeps its newest few).
    earlier = f"(step-{STEPS - CHECKPOINT_EVERY:06d})"
    checkpoint.select_option(label=checkpoint.locator("option").filter(has_text=earlier).inner_text())
    page.get_by_role("button", name="Register").click()
    expect(page.get_by_role("listitem", name="Version 2")).to_be_visible()
    shot(page, "registered")

    page.goto("/deployments")
    page.get_by_label("Name").fill("Sorter")
    page.get_by_label("Slug").fill("sorter")
    page.get_by_label("Model").select_option(label="sorter")
    page.get_by_role("button", name="Create deployment").click()
    expect(page.get_by_label("Deployment status")).to_contain_text("serving", timeout=600_000)
    shot(page, "deployed")


def canary(page: Page, platform: Platform, shot: Shots) -> None:
    page.get_by_label("Candidate").select_option(label="sorter v2")
    page.get_by_label("Split").check()
    page.get_by_label("Steps (%)").fill("50")
    page.get_by_label("min_samples", exact=True).fill("20")
    page.get_by_label("max_samples", exact=True).fill("200")
    page.get_by_role("button", name="Start canary").click()
    page.get_by_role("link", name="Open canary").click()
    expect(page.get_by_role("heading", name=re.compile(r"^Canary \d+$"))).to_be_visible()
    state = page.get_by_label("Canary state")
    expect(state).to_contain_text("running")
    shot(page, "canary-started")

    # As the README runs it: the replayer finds the platform from PLATFORM_URL and sends until
    # the canary has decided.
    replay = subprocess.run(
        [sys.executable, "manage.py", "replay_traffic", "sorter", "--user", "admin", "--rate", "40"],
        cwd=ROOT, env=platform.env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stdout[-2000:] + replay.stderr[-2000:]
    assert "answered in" in replay.stdout + replay.stderr
    expect(state).to_contain_text(re.compile("promoted|rolled back|awaiting decision", re.IGNORECASE), timeout=30_000)
    expect(page.get_by_label("Canary reason")).not_to_be_empty()
    shot(page, "canary-decided")


@pytest.mark.timeout(1500)  # minutes on a quiet machine; a loaded one takes several times that
def test_the_whole_loop_in_the_browser_from_a_fresh_make_run(browser, platform: Platform) -> None:
    shot = Shots()
    page = new_page(browser, platform.url)
    login(page, "admin", (platform.var / "admin_password").read_text().strip())
    shot(page, "signed-in")

    define(page, shot)
    launch(page, shot)
    train_through_a_lost_worker(page, shot, platform)
    report = evaluate_and_compare(page, shot)
    add_reviewer(page, shot)
    approve(browser, platform, report, shot)
    promote_register_deploy(page, report, shot)
    canary(page, platform, shot)
