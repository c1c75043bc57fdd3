"""A verifier's Episodes tab in real Chromium: a scripted episode runs the model's Python in the
real sandbox, shows the conversation with each turn's verdict, and is judged by the verifier."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.test_verifiers import full_screenshot


def test_it_plays_a_scripted_tool_episode_and_shows_each_turns_verdict(
    signed_in_page: Page,
) -> None:
    page = signed_in_page
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Verifiers").click()
    page.get_by_role("button", name="New verifier").click()
    page.get_by_label("Name").fill("Word problems")
    page.get_by_label("Start from").select_option("math-word")
    page.get_by_role("button", name="Create verifier").click()
    expect(page.get_by_role("heading", name="Word problems")).to_be_visible()

    # The sample runs print(17 * 23) in the sandbox, then answers 391: the verifier passes it.
    page.get_by_role("link", name="Episodes").click()
    expect(page.get_by_label("Environment")).to_have_value("python-tool")
    expect(page.get_by_label("Expected (JSON object)")).to_have_value(re.compile(r'"answer": 391'))
    page.get_by_role("button", name="Play episode").click()
    conversation = page.get_by_role("list", name="Episode conversation")
    tool_result = conversation.locator("[data-role=tool]")
    expect(tool_result).to_contain_text("391")
    expect(page.get_by_role("region", name="Verdict")).to_contain_text("Passed")
    expect(conversation.get_by_role("listitem", name="Turn 1")).to_contain_text("clean turn")
    full_screenshot(page, "verifier-episode")

    # A call of a tool the episode does not offer is answered, and its turn is marked.
    form = page.get_by_role("form", name="Episode playground")
    form.get_by_role("textbox", name="Turn 1").fill(
        '<tool_call>{"name": "shell", "arguments": {}}</tool_call>'
    )
    form.get_by_role("button", name="Play episode").click()
    expect(conversation.get_by_role("listitem", name="Turn 1")).to_contain_text("tool_call_parse")
    expect(tool_result).to_contain_text("names no tool of this episode")
    expect(page.get_by_role("region", name="Verdict")).to_contain_text("Passed")
