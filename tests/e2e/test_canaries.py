"""Canary releases in real Chromium, against the production stack: uvicorn, PostgreSQL, Redis,
a Celery worker on the ``serve`` queue holding each version's model in a replica, and
``manage.py replay_traffic`` sending held-out prompts through the platform's endpoint.

A team deploys its model (production: a weak checkpoint), sends a better checkpoint to a
split canary and watches it pass each step and get promoted, live; then sends a far worse
one and watches the analysis roll it back on its verified pass rate. The canary page says
why, and its report keeps each step's analysis.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from experiments.models import ModelAlias
from serving.models import Canary, CanaryState
from tests.conftest import celery_worker
from tests.e2e.conftest import login, screenshot
from tests.e2e.test_runs import ROOT, asgi_page, asgi_server, models_dir, stack_env  # noqa: F401
from tests.serving.serving_setup import Served

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def serving_worker(stack_env, redis_url) -> Iterator[subprocess.Popen]:  # noqa: F811
    import redis

    redis.Redis.from_url(redis_url).delete("serve")  # nothing left over from another test
    with celery_worker(stack_env, queues="serve", concurrency=3) as process:
        yield process


def replay(stack_env: dict[str, str], url: str, requests: int) -> subprocess.Popen:  # noqa: F811
    env = {**stack_env, "DJANGO_SETTINGS_MODULE": "crucible.settings.test"}
    command = [
        sys.executable, "manage.py", "replay_traffic", "sorter", "--user", "alice", "--url", url,
        "--rate", "25", "--requests", str(requests), "--keys", "300", "--concurrency", "6",
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def start_canary(page: Page, candidate: str) -> None:
    page.get_by_label("Candidate").select_option(label=candidate)
    page.get_by_label("Split").check()
    page.get_by_label("Steps (%)").fill("25, 50")
    page.get_by_label("min_samples", exact=True).fill("10")
    page.get_by_role("button", name="Start canary").click()
    page.get_by_role("link", name="Open canary").click()
    expect(page.get_by_role("heading", name=re.compile(r"^Canary \d+$"))).to_be_visible()


def watch_until(page: Page, state: str, traffic: subprocess.Popen, timeout_s: float) -> int:
    """Wait for the canary page to say ``state``; the most chart points seen on the way
    while the traffic ran (the chart grows live, without a reload)."""
    most = 0
    deadline = time.monotonic() + timeout_s
    label = page.get_by_label("Canary state")
    while state not in (label.text_content() or ""):
        figure = page.get_by_label("Pass rate over time")
        if figure.count():
            most = max(most, int(figure.get_attribute("data-points") or 0))
        if time.monotonic() > deadline:
            traffic.kill()
            output = traffic.communicate()[0][-2000:]
            canary = Canary.objects.order_by("-id").first()
            pytest.fail(
                f"the canary never got {state!r}: {label.text_content()!r} "
                f"({canary.state if canary else None}: {canary.reason if canary else ''})\n{output}"
            )
        time.sleep(0.5)
    return most


def test_a_better_candidate_is_promoted_and_a_worse_one_rolled_back_live(
    asgi_page, asgi_server, e2e_user, serving_worker, stack_env, tmp_path  # noqa: F811
):  # type: ignore[no-untyped-def]
    served = Served(e2e_user, tmp_path)
    served.production(served.version(sft_steps=20, step=40))  # passes ~6% of 2-3 digit sorts
    better = served.version(sft_steps=60, step=80)  # ~80%, promoted on an approved report
    served.version(sft_steps=1, step=120, promoted=False)  # ~0%
    page: Page = asgi_page
    login(page)

    page.goto("/deployments")
    expect(page.get_by_text("No deployments yet")).to_be_visible()
    page.get_by_label("Name").fill("Sorter")
    page.get_by_label("Slug").fill("sorter")
    page.get_by_label("Model").select_option(label="sorter")
    page.get_by_role("button", name="Create deployment").click()
    expect(page.get_by_label("Deployment status")).to_contain_text("serving", timeout=120_000)

    prompt, task = served.held_out(1)[0]
    try_it = page.get_by_role("region", name="Try it")
    try_it.get_by_label("Prompt").fill(prompt)
    try_it.get_by_label("Family").fill("digits")
    try_it.get_by_label("Task").fill(task)
    try_it.get_by_role("button", name="Generate").click()
    expect(page.get_by_label("Answer")).to_contain_text("sorter v1")
    screenshot(page, "deployment-serving")

    # A better candidate: each step passes on the verified pass rate, then it is promoted.
    start_canary(page, "sorter v2")
    traffic = replay(stack_env, asgi_server, 1200)
    points = watch_until(page, "promoted", traffic, timeout_s=150)
    assert points >= 2  # the chart grew while the canary ran
    expect(page.get_by_label("Canary reason")).to_contain_text("now serves production")
    history = page.get_by_label("Canary history")
    expect(history).to_contain_text("25%")
    expect(history).to_contain_text("50%")
    screenshot(page, "canary-promoted")
    traffic.terminate()
    traffic.wait(timeout=30)
    assert ModelAlias.objects.get(alias="production").version_id == better.pk

    # The canary's report sits beside the candidate's evaluation report, both ways.
    canary_page = page.url
    page.get_by_role("link", name="Candidate's evaluation report").click()
    releases = page.get_by_role("list", name="Canary releases")
    expect(releases).to_contain_text("promoted: sorter v2 now serves production")
    releases.get_by_role("link", name=re.compile(r"^Canary \d+$")).click()
    assert page.url == canary_page

    # A far worse one: rolled back by the analysis, saying why.
    page.get_by_role("link", name="Back to").click()
    expect(page.get_by_label("Deployment status")).to_contain_text("serving")
    start_canary(page, "sorter v3")
    traffic = replay(stack_env, asgi_server, 600)
    watch_until(page, "rolled back", traffic, timeout_s=150)
    expect(page.get_by_label("Canary reason")).to_contain_text("pass rate")
    checks = page.get_by_role("table", name="Guardrail checks")
    expect(checks).to_contain_text("fail")
    screenshot(page, "canary-rolled-back")
    output, _ = traffic.communicate(timeout=120)
    assert "answered in" in output  # the replayer's summary, after its progress bar
    rolled = Canary.objects.order_by("-id").first()
    assert rolled is not None and rolled.state == CanaryState.ROLLED_BACK
    assert rolled.history[-1]["outcome"] == "failed"
    assert ModelAlias.objects.get(alias="production").version_id == better.pk
    assert Path(os.environ.get("E2E_SCREENSHOTS", "/tmp/crucible-e2e")).exists()
