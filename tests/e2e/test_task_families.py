"""Task families in real Chromium: create, preview, freeze a version, browse it, queue a
difficulty measurement; an upload mapped from the file's own columns, previewed and appended; a
rejected upload; removing a family a curriculum pins."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from experiments.models import Worker
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

    # Measuring difficulty offers only what a worker can load; with none running, it says so.
    measure = page.get_by_role("region", name="Measure difficulty")
    expect(measure).to_contain_text("graded by pass rate")
    model = measure.get_by_label("Model", exact=True)
    expect(model).to_have_accessible_description(re.compile("^No worker is running"))
    expect(measure.get_by_role("button", name="Measure difficulty")).to_be_disabled()
    # A worker's heartbeat (no worker consumes here, so the job stays queued).
    offered = {"name": "tiny-digit-sort", "path": "tiny-digit-sort", "builtin": True}
    Worker.objects.create(
        name="celery@e2e", queues=["cpu"], loadable=[{**offered, "parameters": None, "ready": False}]
    )
    model.select_option("tiny-digit-sort", timeout=20_000)  # the empty list is asked again
    measure.get_by_role("button", name="Measure difficulty").click()
    job = measure.get_by_role("list", name="Difficulty jobs").get_by_role("listitem").first
    expect(job).to_contain_text("queued")
    expect(job).to_contain_text("tiny-digit-sort")
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
    page.get_by_label("File").set_input_files(str(bad))
    expect(page.get_by_label("answer", exact=True)).to_have_value("answer")
    page.get_by_role("button", name="Preview").click()

    expect(page.get_by_role("alert")).to_contain_text("3 invalid row(s); nothing was imported")
    rows = page.get_by_role("table", name="Rejected rows").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("answer")
    expect(rows.nth(1)).to_contain_text("whole row")
    expect(rows.nth(2)).to_contain_text("difficulty")
    expect(page.get_by_role("button", name="Freeze version")).to_be_disabled()
    screenshot(page, "task-family-upload-rejected")
    expect(page.get_by_role("list", name="Versions")).to_have_count(0)


QUESTIONS = "question,answer,level\n" + "".join(
    f"What is {i} + {i}?,{2 * i},{'hard' if i % 2 else 'easy'}\n" for i in range(1, 11)
)
MORE_QUESTIONS = "question,answer,level\n" + "".join(
    f"What is {i} + {i}?,{2 * i},easy\n" for i in range(9, 14)
)


def test_it_maps_an_upload_from_its_columns_previews_it_and_appends_the_next(signed_in_page, tmp_path):  # type: ignore[no-untyped-def]
    page = signed_in_page
    create_arithmetic_family(page, "Questions")
    first, second = tmp_path / "questions.csv", tmp_path / "more.csv"
    first.write_text(QUESTIONS)
    second.write_text(MORE_QUESTIONS)

    page.get_by_role("tab", name="Upload").click()
    page.get_by_label("File").set_input_files(str(first))
    mapping = page.get_by_role("table", name="Field mapping")
    expect(mapping.get_by_label("answer")).to_have_value("answer")
    expect(mapping.get_by_label("prompt")).to_have_value("")
    expect(page.get_by_role("button", name="Preview")).to_be_disabled()
    mapping.get_by_label("prompt").select_option("question")
    mapping.get_by_label("difficulty").select_option("level")
    page.get_by_label("easy", exact=True).select_option("1")
    page.get_by_label("hard", exact=True).select_option("3")
    page.get_by_role("radio", name="Keep prompts as uploaded").check()
    page.get_by_role("button", name="Preview").click()

    changes = page.get_by_role("status", name="What freezing does")
    expect(changes).to_contain_text("Freezing makes v1 with 10 tasks")
    samples = page.get_by_role("table", name="Sample tasks")
    expect(samples).to_contain_text("What is 1 + 1?")
    expect(samples).not_to_contain_text("Compute")
    screenshot(page, "task-family-upload-preview")
    page.get_by_role("button", name="Freeze version").click()
    expect(page.get_by_role("status").filter(has_text="Froze version")).to_be_visible()

    # A second file is added to v1 by default; the preview says so before anything is frozen.
    page.get_by_label("File").set_input_files(str(second))
    mapping.get_by_label("prompt").select_option("question")
    page.get_by_role("radio", name="Keep prompts as uploaded").check()
    expect(page.get_by_role("radio", name="Add these tasks to v1’s (duplicates dropped)")).to_be_checked()
    page.get_by_role("button", name="Preview").click()
    expect(changes).to_contain_text("the 10 tasks of v1 and the file’s new ones")
    expect(changes).to_contain_text("+3 added")
    expect(changes).to_contain_text("2 duplicates dropped")
    screenshot(page, "task-family-upload-append")
    page.get_by_role("button", name="Freeze version").click()
    expect(page.get_by_role("status").filter(has_text="Froze version")).to_be_visible()
    page.get_by_role("list", name="Versions").get_by_role("link", name="Version 2").click()
    added = page.get_by_role("list", name="Added tasks")
    expect(added).to_contain_text("What is 13 + 13?")
    screenshot(page, "pool-version-diff")


def test_it_archives_a_family_a_curriculum_pins_saying_so_first(signed_in_page, e2e_user):  # type: ignore[no-untyped-def]
    from tasks_app.services import curricula, pools

    team = e2e_user.memberships.get().team
    family = pools.create_family(e2e_user, team, name="Pinned sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 20}, seed=1)
    version, _ = pools.version_from_tasks(e2e_user, family, tasks, source="generator", detail={}, near=False)
    config = {"families": [{"version": version.pk}]}
    curricula.create_curriculum(e2e_user, team, name="Ramp", slug="ramp", config=config)
    page = signed_in_page

    page.goto(f"/task-families/{family.pk}")
    page.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("archived, not deleted: it is pinned by curriculum 'Ramp' (v1)")
    screenshot(page, "task-family-archive-dialog")
    dialog.get_by_role("button", name="Archive family").click()
    expect(page.get_by_text("Archived: this family is hidden from lists")).to_be_visible()

    page.goto("/task-families")
    expect(page.get_by_role("link", name="Pinned sums")).to_have_count(0)
    page.get_by_role("checkbox", name="Show archived").check()
    page.get_by_role("link", name="Pinned sums").click()
    page.get_by_role("button", name="Restore").click()
    expect(page.get_by_role("tab", name="Generate")).to_be_visible()
