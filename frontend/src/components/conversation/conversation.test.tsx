import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { Conversation, asConversation, type ConversationMessage } from "./conversation";

const EPISODE: ConversationMessage[] = [
  { role: "system", content: "You can run Python." },
  { role: "user", content: "How many eggs?" },
  {
    role: "assistant",
    content: "",
    tool_calls: [{ id: "call_1_0", type: "function", function: { name: "python", arguments: '{"code": "print(17 * 23)"}' } }],
    verdict: { error: null, info: {} },
  },
  { role: "tool", content: "391\n", tool_call_id: "call_1_0", name: "python" },
  { role: "assistant", content: '<tool_call>{"name": "py"}</tool_call>', verdict: { error: "tool_call_parse" } },
  { role: "assistant", content: "#### 391", verdict: { error: null } },
];

describe("Conversation", () => {
  it("shows each turn with its tool calls, the tools' results and the per-turn verdicts", () => {
    render(<Conversation messages={EPISODE} />);
    const first = screen.getByRole("listitem", { name: "Turn 1" });
    expect(within(first).getByLabelText("Call of python")).toHaveTextContent("print(17 * 23)");
    expect(first).toHaveTextContent("clean turn");
    const result = screen.getAllByRole("listitem").find((li) => li.dataset.role === "tool")!;
    expect(result).toHaveTextContent("Tool · python");
    expect(result).toHaveTextContent("answers call_1_0");
    expect(result).toHaveTextContent("391");
    expect(screen.getByRole("listitem", { name: "Turn 2" })).toHaveTextContent("tool_call_parse");
    expect(screen.getByRole("listitem", { name: "Turn 3" })).toHaveTextContent("#### 391");
  });

  it("can leave out the opening the page already shows", () => {
    render(<Conversation messages={EPISODE} hideOpening />);
    expect(screen.queryByText("How many eggs?")).not.toBeInTheDocument();
    // The system message (the tools offered) stays behind a closed disclosure.
    const opening = screen.getByText(/System message: the instructions and tools/);
    expect(opening.closest("details")).not.toHaveAttribute("open");
    expect(opening.closest("details")).toHaveTextContent("You can run Python.");
    const turns = screen.getAllByRole("listitem").filter((li) => li.dataset.role === "assistant");
    expect(turns[0]).toHaveAccessibleName("Turn 1");
  });

  it("takes only a non-empty list of messages as a conversation", () => {
    expect(asConversation(EPISODE)).toHaveLength(6);
    expect(asConversation([])).toBeNull();
    expect(asConversation(undefined)).toBeNull();
    expect(asConversation([{ content: "no role" }])).toBeNull();
  });
});
