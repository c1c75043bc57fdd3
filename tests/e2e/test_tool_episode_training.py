"""Training a tool-using family in real Chromium, against the production stack.

An SQL family is defined in the browser as played with its SQL tool (the model may query the
task's database before answering), frozen into a pool version whose page says how it is
played, and judged by a verifier composed from its kind; the wizard shows the version's
environment and launches a short GRPO run of the built-in tiny model; a real Celery worker
trains on episodes; the rollout inspector shows a stored episode as the conversation it was
(its turns, any tool call and its result or error) with each turn's verdict and the
episode's. The tiny model does not know the tool's call format, so most
episodes end on a first turn judged wrong: the inspector says so rather than hiding them.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from experiments.models import Rollout, Run, RunState
from tasks_app.models import PoolVersion
from tasks_app.services import curricula
from tests.e2e.conftest import login, screenshot
from tests.e2e.test_episode_training import (  # noqa: F401 (fixtures)
    asgi_page,
    stack_env,
    training_worker,
)
from tests.experiments.runs_setup import models_dir  # noqa: F401 (fixture: the tiny model)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
MAX_TURNS = 2


def define_family(page: Page) -> None:
    """An SQL family played with its SQL tool, with a frozen pool version."""
    page.goto("/task-families")
    page.get_by_role("button", name="New family").first.click()
    page.get_by_label("Name").fill("SQL questions")
    page.get_by_label("Kind").select_option("sql-query")
    played_as = page.get_by_label("Played as")
    expect(played_as.locator("option", has_text="SQL tool")).to_have_count(1)
    played_as.select_option("sql-tool")
    expect(page.get_by_label("Max turns")).to_have_value("4")  # the environment's default
    page.get_by_label("Max turns").fill(str(MAX_TURNS))
    page.get_by_label("Max tokens per turn").fill("16")
    page.get_by_label("Max total tokens").fill("2048")
    page.get_by_role("button", name="Create family").click()
    expect(page.get_by_role("heading", level=1, name="SQL questions")).to_be_visible()
    expect(page.get_by_label("How it is played")).to_contain_text(
        f"episodes of sql-tool (≤ {MAX_TURNS} turns, 16 tokens a turn"
    )
    for level in range(1, 6):
        page.get_by_label(f"Level {level}", exact=True).fill("30" if level == 1 else "0")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("table", name="Sample tasks")).to_be_visible()
    page.get_by_role("button", name="Freeze version").click()
    expect(page.get_by_role("status").filter(has_text="Froze version")).to_be_visible()
    screenshot(page, "tool-family")

    # The version's page says what it froze: the environment its runs play.
    version = PoolVersion.objects.get(family__slug="sql-questions")
    page.goto(f"/task-families/{version.family_id}/versions/{version.pk}")
    expect(page.get_by_label("How this version is played")).to_contain_text(
        f"episodes of sql-tool (≤ {MAX_TURNS} turns"
    )


def compose_verifier(page: Page) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Verifiers").click()
    page.get_by_role("button", name="New verifier").click()
    page.get_by_label("Name").fill("Same rows")
    page.get_by_label("Start from").select_option("sql-query")
    page.get_by_role("button", name="Create verifier").click()
    expect(page.get_by_role("heading", name="Same rows")).to_be_visible()


def test_a_tool_using_family_trains_on_episodes_shown_with_their_tools_and_verdicts(
    asgi_page,  # noqa: F811
    e2e_user,
    training_worker,  # noqa: F811
):
    page = asgi_page
    login(page)
    define_family(page)
    compose_verifier(page)
    version = PoolVersion.objects.get(family__slug="sql-questions")
    assert version.environment is not None and version.environment["kind"] == "sql-tool"
    curricula.create_curriculum(
        e2e_user,
        version.family.team,
        name="SQL basics",
        slug="sql-basics",
        description="Level 1 questions.",
        config={"families": [{"version": version.pk, "weight": 1}], "window": 8},
    )

    page.goto("/experiments/new")
    page.get_by_role("radio", name=re.compile("SQL basics")).check()
    family = page.get_by_role("group", name=re.compile("Family sql-questions"))
    expect(family.get_by_label("Environment sql-tool")).to_contain_text(f"≤ {MAX_TURNS} turns")
    expect(family.get_by_label(re.compile("Verifier for pool version"))).to_contain_text(
        re.compile(r"Same.Rows · v1", re.I)
    )
    screenshot(page, "tool-wizard")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Base model").select_option("tiny-digit-sort")
    page.get_by_role("button", name="Next").click()
    page.get_by_label("max_steps", exact=True).fill("2")
    page.get_by_label("prompts_per_step", exact=True).fill("2")
    page.get_by_label("group_size", exact=True).fill("2")
    page.get_by_role("button", name="Review").click()
    page.get_by_label("Name").fill("SQL tool, GRPO")
    page.get_by_role("button", name="Create and launch").click()
    page.wait_for_url(re.compile(r"/runs/\d+$"))
    run_id = int(page.url.rsplit("/", 1)[1])

    expect(page.get_by_text("Succeeded").first).to_be_visible(timeout=240_000)
    assert Run.objects.get(pk=run_id).state == RunState.SUCCEEDED
    stored = list(Rollout.objects.filter(run_id=run_id))
    assert stored and all(r.messages for r in stored)
    # The episode opens with the tools the model was offered, then the task's question.
    assert [m["role"] for m in stored[0].messages[:2]] == ["system", "user"]
    assert "<tool_call>" in stored[0].messages[0]["content"]

    page.get_by_role("link", name="Rollouts").click()
    episode = page.get_by_role("list", name=re.compile("Episode of sample")).first
    expect(episode).to_be_visible()
    first_turn = episode.get_by_role("listitem", name="Turn 1")
    expect(first_turn).to_contain_text("Assistant")
    # A turn's verdict is the environment's: clean, or the tool call's error.
    expect(first_turn.locator(".badge").first).to_have_text(
        re.compile("clean turn|tool_call_parse|tool_error|passed|failed")
    )
    turns = episode.get_by_role("listitem", name=re.compile(r"^Turn \d+$"))
    assert 1 <= turns.count() <= MAX_TURNS
    # Whatever the model wrote, the episode's final verdict is shown, passed or failed.
    expect(page.get_by_text(re.compile(r"^(passed|failed)$")).first).to_be_visible()
    screenshot(page, "tool-rollouts")
