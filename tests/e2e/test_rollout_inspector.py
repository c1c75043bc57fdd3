"""The rollout inspector in real Chromium: from a chart's point to that step's rollouts, a
verdict flagged as wrong, and the flag accepted on the verifier's page, which changes the
verifier's reported false-negative rate; one turn of an episode flagged, shown on that turn."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from experiments.models import Rollout
from tasks_app.models import ExampleProposal, LabelledExample, VerifierVersion
from tasks_app.services import verifiers
from tests.e2e.conftest import full_screenshot
from tests.experiments.rollouts_setup import judged_run


def test_it_flags_a_verdict_and_the_accepted_flag_changes_the_verifiers_rates(
    signed_in_page: Page, e2e_user
) -> None:
    page = signed_in_page
    team = e2e_user.memberships.get().team
    run = judged_run(e2e_user, team, steps=2, groups=3)
    version = VerifierVersion.objects.get(pk=run.rollouts.first().verifier_version)
    verifier = version.verifier
    for response, label in (("12", "good"), ("21", "bad")):
        verifiers.add_example(
            e2e_user, verifier, response=response, expected={"answer": "12"}, label=label
        )

    # A point on a chart opens the rollouts of its step.
    page.goto(f"/runs/{run.pk}")
    chart = page.get_by_role("img", name="Reward and its parts")
    expect(chart).to_be_visible()
    box = chart.locator(".u-over").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 4, box["y"] + box["height"] / 2)  # the first point: step 1
    page.mouse.click(box["x"] + 4, box["y"] + box["height"] / 2)
    expect(page).to_have_url(re.compile(rf"/runs/{run.pk}/rollouts\?step=1$"))
    expect(page.get_by_label("Step")).to_have_value("1")
    group = page.get_by_role("article", name="Step 1, group 0")
    expect(group).to_contain_text("1 of 4 passed")
    expect(page.get_by_role("article", name=re.compile("^Step 2"))).to_have_count(0)

    # Filters narrow the completions within the groups; the others stay, dimmed.
    page.get_by_label("Error type").select_option("format_error")
    expect(page.get_by_text("3 groups")).to_be_visible()
    expect(group.locator("tr.rn-match")).to_have_count(1)
    page.get_by_label("Error type").select_option("")

    # The completion with a space was refused: flag it as a known good answer.
    spaced = group.locator("tr[data-sample='1']")
    expect(spaced).to_contain_text("wrong_answer")
    spaced.get_by_role("button", name="Flag verdict of sample 1").click()
    form = page.get_by_role("form", name="Flag the verdict of sample 1")
    expect(form).to_contain_text("a known good example (the verifier failed it)")
    form.get_by_label("Why (optional)").fill("a space between digits is still sorted")
    full_screenshot(page, "rollout-inspector-flagging")
    form.get_by_role("button", name="Send flag").click()
    expect(spaced).to_contain_text("flagged: awaiting review")
    full_screenshot(page, "rollout-inspector-flagged")

    # On the verifier's page: the rates before, the proposal accepted, the rates after.
    page.goto(f"/verifiers/{verifier.pk}/examples")
    page.get_by_role("button", name=f"Evaluate version {version.number}").click()
    expect(page.get_by_role("group", name="False-negative rate")).to_contain_text("0.0%")
    proposals = page.get_by_role("table", name="Proposed examples")
    row = proposals.get_by_role("row").filter(has_text="a space between digits")
    expect(row).to_contain_text("known good")
    expect(
        row.get_by_role("link", name=re.compile(r"run #1, step 1, group 0, sample 1"))
    ).to_be_visible()
    full_screenshot(page, "verifier-proposals")
    row.get_by_role("button", name=re.compile("^Accept proposal")).click()
    expect(page.get_by_text("Nothing waits for a decision.")).to_be_visible()
    expect(page.get_by_role("table", name="Labelled examples")).to_contain_text(
        "a space between digits"
    )
    page.get_by_role("button", name=f"Evaluate version {version.number}").click()
    expect(page.get_by_role("group", name="False-negative rate")).to_contain_text("50.0%")
    full_screenshot(page, "verifier-proposal-accepted")
    assert LabelledExample.objects.filter(verifier=verifier, label="good").count() == 2

    # Back on the run, the flag says it was accepted.
    page.goto(f"/runs/{run.pk}/rollouts?step=1")
    expect(
        page.get_by_role("article", name="Step 1, group 0").locator("tr[data-sample='1']")
    ).to_contain_text("flag accepted")


EPISODE = [
    {"role": "user", "content": "sort 312"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "python", "arguments": '{"code": "print(sorted(\'312\'))"}'},
            }
        ],
        "verdict": {"error": "tool_call_parse", "info": {}},
    },
    {"role": "tool", "content": "['1', '2', '3']", "tool_call_id": "c1", "name": "python"},
    {"role": "assistant", "content": "123", "verdict": {"error": None, "info": {}}},
]


def test_it_flags_one_turn_of_an_episode_and_shows_the_flag_on_that_turn(
    signed_in_page: Page, e2e_user
) -> None:
    page = signed_in_page
    team = e2e_user.memberships.get().team
    run = judged_run(e2e_user, team, steps=1, groups=1)
    # The stored completion is an episode: a tool call judged malformed, then the answer.
    episode = Rollout.objects.get(run=run, step=1, group=0, sample=0)
    Rollout.objects.filter(pk=episode.pk).update(messages=EPISODE)

    page.goto(f"/runs/{run.pk}/rollouts?step=1")
    conversation = page.get_by_role("list", name="Episode of sample 0")
    first = conversation.get_by_role("listitem", name="Turn 1")
    expect(first).to_contain_text("tool_call_parse")
    first.get_by_role("button", name="Flag turn 1 of sample 0").click()
    form = first.get_by_role("form", name="Flag the verdict of turn 1 of sample 0")
    expect(form).to_contain_text("judged tool_call_parse, but it was fine")
    form.get_by_label("Why (optional)").fill("the call parses: the environment misread it")
    form.get_by_role("button", name="Send flag").click()
    expect(first).to_contain_text("flagged: awaiting review")
    # Only that turn: the next one and the rollout's own verdict can still be flagged.
    second = conversation.get_by_role("listitem", name="Turn 2")
    expect(second.get_by_role("button", name="Flag turn 2 of sample 0")).to_be_visible()
    expect(page.get_by_role("button", name="Flag verdict of sample 0")).to_be_visible()
    full_screenshot(page, "rollout-inspector-turn-flagged")
    proposal = ExampleProposal.objects.get()
    assert (proposal.turn, proposal.messages, proposal.label) == (1, EPISODE[:2], "good")

    # Accepted on the verifier's page, the turn says so after a reload.
    page.goto(f"/verifiers/{proposal.verifier_id}/examples")
    proposals = page.get_by_role("table", name="Proposed examples")
    row = proposals.get_by_role("row").filter(has_text="the environment misread it")
    expect(row.get_by_role("link", name=re.compile(r"sample 0, turn 1"))).to_be_visible()
    row.get_by_role("button", name=re.compile("^Accept proposal")).click()
    expect(page.get_by_text("Nothing waits for a decision.")).to_be_visible()
    example = LabelledExample.objects.get(verifier_id=proposal.verifier_id)
    assert example.turn == 1
    # The labelled example opens as the episode up to that turn, the turn marked.
    examples = page.get_by_role("table", name="Labelled examples")
    examples.get_by_text("Turn 1 of an episode").click()
    labelled = examples.get_by_role("list", name=f"Episode of example {example.pk}")
    expect(labelled.get_by_role("listitem", name="Turn 1")).to_contain_text("labelled good")
    full_screenshot(page, "verifier-examples-labelled-turn")
    page.goto(f"/runs/{run.pk}/rollouts?step=1")
    turn = page.get_by_role("list", name="Episode of sample 0").get_by_role(
        "listitem", name="Turn 1"
    )
    expect(turn).to_contain_text("flag accepted")
