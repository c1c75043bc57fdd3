"""Task families in real Chromium: create, preview, freeze a version, browse it, queue a
difficulty measurement; a rejected upload."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot

MALFORMED = (
    '{"prompt": "Compute 1 + 1.", "answer": "2", "difficulty": 1}\n'
    '{"prompt": "Compute 2 + 2.", "difficulty": 1}\n'
    "this is not json\n"
    '{"prompt": "Compute 3 + 3.", "answer": "6", "difficulty": 9}\n'
)


def create_arithmetic_family(page, name: str = "Arithmetic warm-up") -> None:  # type: ignore[no-untyped-def]
    page.goto("/task-families")
    page.get_by_role("button", name="New family").first.click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Kind").select_option("arithmetic")
    expect(page.get_by_label("About Arithmetic")).to_contain_text("Add, subtract or multiply")
    page.get_by_role("checkbox", name="*").uncheck()
    screenshot(page, "task-family-new")
    page.get_by_role("button", name="Create family").click()
    expect(page.get_by_role("heading", level=1, name=name)).to_be_visible()


def test_it_creates_a_family_previews_freezes_and_browses_a_version(signed_in_page):  # type: ignore[no-untyped-def]
    page = signed_in_page
    create_arithmetic_family(page)

    for level in range(1, 7):
        page.get_by_label(f"Level {level}", exact=True).fill("20" if level <= 3 else "0")
    page.get_by_label("Seed").fill("7")
    page.get_by_role("button", name="Preview").click()
    preview = page.get_by_role("region", name="Preview")
    expect(preview.get_by_role("table", name="Sample tasks")).to_contain_text("Compute")
    expect(preview.get_by_role("img", name="Previewed tasks per level").locator("rect.chart-bar")).to_have_count(3)
    screenshot(page, "task-family-preview")

    page.get_by_label("Note").fill("first pool")
    page.get_by_role("button", name="Freeze version").click()
    expect(page.get_by_role("status").filter(has_text="Froze version")).to_be_visible()
    versions = page.get_by_role("list", name="Versions")
    expect(versions).to_contain_text("v1")
    expect(versions).to_contain_text("first pool")

    # The same settings again freeze nothing new.
    page.get_by_role("button", name="Freeze version").click()
    expect(page.get_by_role("status").filter(has_text="identical to the latest version")).to_be_visible()
    screenshot(page, "task-family-detail")

    versions.get_by_role("link", name="Version 1").click()
    expect(page).to_have_url(re.compile(r"/task-families/\d+/versions/\d+$"))
    chart = page.get_by_role("img", name="Tasks per difficulty level")
    expect(chart.locator('rect.chart-bar[data-series="train"]')).to_have_count(3)
    tasks = page.get_by_role("table", name="Tasks")
    expect(tasks).to_contain_text("Compute")
    page.get_by_label("Split").select_option("held_out")
    expect(tasks.locator("tbody tr").first).to_contain_text("held out")
    page.get_by_role("button", name=re.compile(r"^Show task \d+$")).first.click()
    expect(tasks).to_contain_text('"answer"')

    # Measuring difficulty queues a job; with no worker running it stays queued.
    measure = page.get_by_role("region", name="Measure difficulty")
    expect(measure).to_contain_text("graded by pass rate")
    measure.get_by_label("Model path").fill("/nonexistent")
    measure.get_by_role("button", name="Measure difficulty").click()
    job = measure.get_by_role("list", name="Difficulty jobs").get_by_role("listitem").first
    expect(job).to_contain_text("queued")
    expect(job).to_contain_text("/nonexistent")
    screenshot(page, "pool-version")

    tasks.get_by_role("checkbox", name=re.compile(r"^Select task")).first.check()
    page.get_by_role("button", name="Remove selected → new version").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("v2")
    expect(page.get_by_role("region", name="Changes")).to_contain_text("−1 removed")


def test_it_lists_each_bad_row_of_a_rejected_upload(signed_in_page, tmp_path):  # type: ignore[no-untyped-def]
    page = signed_in_page
    create_arithmetic_family(page, "Uploaded sums")
    bad = tmp_path / "tasks.jsonl"
    bad.write_text(MALFORMED)

    page.get_by_role("tab", name="Upload").click()
    expect(page.get_by_label("answer", exact=True)).to_have_value("answer")
    page.get_by_label("File").set_input_files(str(bad))
    page.get_by_role("button", name="Upload and freeze").click()

    expect(page.get_by_role("alert")).to_contain_text("3 invalid row(s); nothing was imported")
    rows = page.get_by_role("table", name="Rejected rows").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("answer")
    expect(rows.nth(1)).to_contain_text("whole row")
    expect(rows.nth(2)).to_contain_text("difficulty")
    screenshot(page, "task-family-upload-rejected")
    expect(page.get_by_role("list", name="Versions")).to_have_count(0)
