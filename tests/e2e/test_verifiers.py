"""Verifier pages in real Chromium: create from a family kind's default, run the playground
against the real sandbox, change the layers into a new version, measure it on labelled examples."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from tasks_app.services import pools
from tests.e2e.conftest import screenshot

WRONG_ADD = "```python\ndef add(a, b):\n    return a - b\n```"


def full_screenshot(page: Page, name: str) -> None:
    """The shell scrolls inside <main>, so grow the window to the page before the shot."""
    height = page.evaluate("document.querySelector('.main-inner').scrollHeight + 80")
    page.set_viewport_size({"width": 1360, "height": max(860, int(height))})
    screenshot(page, name)
    page.set_viewport_size({"width": 1360, "height": 860})


def layer_row(page: Page, name: str):  # type: ignore[no-untyped-def]
    return page.get_by_test_id("verdict-row").filter(has=page.get_by_text(name, exact=True))


def create_python_verifier(page: Page) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Verifiers").click()
    page.get_by_role("button", name="New verifier").click()
    page.get_by_label("Name").fill("HumanEval tests")
    expect(page.get_by_label("Start from")).to_have_value("python-function")
    page.get_by_role("button", name="Create verifier").click()
    expect(page.get_by_role("heading", name="HumanEval tests")).to_be_visible()
    expect(page.get_by_role("listitem", name="Layer 3: tests")).to_be_visible()


def test_it_builds_runs_versions_and_measures_a_verifier(signed_in_page: Page) -> None:
    page = signed_in_page
    create_python_verifier(page)
    expect(page.get_by_role("heading", name="HumanEval tests")).to_be_visible()
    full_screenshot(page, "verifier-builder")

    # Playground: the prefilled correct function passes every layer in the real sandbox.
    page.get_by_role("link", name="Playground").click()
    page.get_by_role("button", name="Run", exact=True).click()
    verdict = page.get_by_role("region", name="Verdict")
    expect(verdict).to_contain_text("Passed")
    expect(layer_row(page, "tests").get_by_role("img", name="passed")).to_be_visible()
    expect(layer_row(page, "tests")).to_contain_text("2/2 tests")
    full_screenshot(page, "verifier-playground-pass")

    # A wrong function fails the unit tests; the hidden tests after it are skipped.
    page.get_by_label("Response").fill(WRONG_ADD)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(verdict).to_contain_text("Failed")
    expect(layer_row(page, "parses").get_by_role("img", name="passed")).to_be_visible()
    expect(layer_row(page, "tests").get_by_role("img", name="failed")).to_be_visible()
    expect(layer_row(page, "tests")).to_contain_text("wrong_answer")
    expect(layer_row(page, "hidden_tests").get_by_role("img", name="skipped")).to_be_visible()
    full_screenshot(page, "verifier-playground-fail")

    # Builder: a numeric_match layer goes at the end of the semantic stage, before the hidden
    # tests; with a bad tolerance it is refused at that param; fixed, it saves.
    page.get_by_role("link", name="Builder").click()
    page.get_by_role("button", name="Add numeric_match layer").click()
    layer = page.get_by_role("listitem", name="Layer 4: numeric_match")
    expect(page.get_by_role("listitem", name="Layer 5: hidden_tests")).to_be_visible()
    layer.get_by_label("abs_tol").fill("-1")
    page.get_by_label("Note for the new version").fill("check the returned number too")
    page.get_by_role("button", name="Save as new version").click()
    expect(layer.get_by_role("alert")).to_contain_text("non-negative")
    full_screenshot(page, "verifier-builder-error")
    layer.get_by_label("abs_tol").fill("0.01")
    page.get_by_role("button", name="Save as new version").click()
    expect(page.get_by_text("Saved as version 2.")).to_be_visible()
    expect(page.get_by_text("version 2", exact=False).first).to_be_visible()

    # Saving the same spec again is not a new version.
    page.get_by_role("button", name="Save as new version").click()
    expect(page.get_by_text("No change: the spec is identical to version 2.")).to_be_visible()

    # Examples: one good and one bad labelled response, evaluated with each version.
    page.get_by_role("link", name=re.compile("^Examples")).click()
    page.get_by_label("Response").fill("```python\ndef add(a, b):\n    return a + b\n```")
    page.get_by_label("Note (optional)").fill("correct")
    page.get_by_role("button", name="Add good example").click()
    expect(page.get_by_role("table", name="Labelled examples")).to_contain_text("correct")
    page.get_by_role("radio", name=re.compile("^bad")).check()
    page.get_by_label("Response").fill(WRONG_ADD)
    page.get_by_label("Note (optional)").fill("subtracts")
    page.get_by_role("button", name="Add bad example").click()
    expect(page.get_by_role("table", name="Labelled examples")).to_contain_text("subtracts")

    page.get_by_label("Version", exact=True).select_option("1")
    page.get_by_role("button", name="Evaluate version 1").click()
    expect(page.get_by_role("group", name="False-positive rate")).to_contain_text("0.0%")
    expect(page.get_by_role("group", name="False-negative rate")).to_contain_text("0.0%")
    expect(page.get_by_role("group", name="Accuracy")).to_contain_text("100.0%")

    # Version 2 wants a numeric answer the function tasks do not carry: the good one is rejected.
    page.get_by_label("Version", exact=True).select_option("2")
    page.get_by_role("button", name="Evaluate version 2").click()
    expect(page.get_by_role("group", name="False-negative rate")).to_contain_text("100.0%")
    expect(page.get_by_role("group", name="False-positive rate")).to_contain_text("0.0%")
    expect(page.get_by_role("cell", name="good rejected")).to_have_text("1")
    expect(page.get_by_role("table", name="Misjudged examples")).to_contain_text("numeric_match")
    full_screenshot(page, "verifier-evaluation")

    # Versions: both listed, and the diff shows the added layer.
    page.get_by_role("link", name=re.compile("^Versions")).click()
    expect(page.get_by_role("table", name="Versions")).to_contain_text("check the returned number too")
    expect(page.get_by_role("table", name="Spec diff")).to_contain_text('"kind": "numeric_match"')
    full_screenshot(page, "verifier-versions")

    page.get_by_role("link", name="Verifiers", exact=True).first.click()
    row = page.get_by_role("row").filter(has=page.get_by_role("link", name="HumanEval tests"))
    expect(row).to_contain_text("v2")
    expect(page.get_by_role("region", name="Sandbox")).to_be_visible()
    full_screenshot(page, "verifier-list")


def test_it_warns_about_layers_out_of_stage_order(signed_in_page: Page) -> None:
    page = signed_in_page
    create_python_verifier(page)
    page.get_by_role("button", name="Move tests up").click()
    page.get_by_role("button", name="Move tests up").click()
    warning = page.get_by_role("status", name="Layer order")
    expect(warning).to_contain_text(
        "'parses' (syntax) runs after 'tests' (semantics): it is skipped whenever tests fails"
    )
    forbidden = page.get_by_role("listitem", name="Layer 3: no_unsafe_imports")
    expect(forbidden.get_by_test_id("layer-scope")).to_contain_text("only the extracted answer")
    full_screenshot(page, "verifier-builder-stage-warning")


def test_it_starts_a_verifier_from_a_familys_default_and_runs_it_on_a_pool_task(
    signed_in_page: Page, e2e_user
) -> None:
    page = signed_in_page
    team = e2e_user.memberships.get().team
    family = pools.create_family(e2e_user, team, name="Sums", slug="sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 5}, seed=0)
    pools.version_from_tasks(e2e_user, family, tasks, source="generator", detail={}, near=False)

    page.goto(f"/task-families/{family.id}")
    card = page.get_by_role("region", name="Default verifier")
    expect(card).to_contain_text("final_answer_or_last_number")
    expect(card).to_contain_text("numeric_match")
    full_screenshot(page, "family-default-verifier")
    card.get_by_role("button", name="Create a verifier from this default").click()
    expect(page.get_by_role("heading", name="Sums verifier")).to_be_visible()
    expect(page.get_by_role("listitem", name="Layer 1: answer")).to_be_visible()

    page.get_by_role("link", name="Playground").click()
    page.get_by_text("Load a real task from a pool version").click()
    page.get_by_label("Family").select_option(label="Sums (arithmetic)")
    page.get_by_role("button", name="Random task").click()
    expect(page.get_by_label("Task prompt")).to_contain_text("Compute")
    answer = json.loads(page.get_by_label("Expected (JSON object)").input_value())["answer"]
    page.get_by_label("Response").fill(f"Answer: {answer}")
    page.get_by_role("radio", name="a saved version").check()
    expect(page.get_by_label("Version", exact=True)).to_contain_text("v1")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_role("region", name="Verdict")).to_contain_text("Passed")
    full_screenshot(page, "verifier-playground-pool-task")
