import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { EnvironmentKind } from "../api/get-environment-kinds";
import type { Episode } from "../api/run-episode";
import { KINDS, SANDBOX, VERDICT, VERIFIER, versionOf } from "../testing-fixtures";

const LIMITS = { max_turns: 4, max_tokens_per_turn: 256, max_total_tokens: 4096 };

function tool(name: string, argument: string) {
  const parameters = { type: "object", properties: { [argument]: { type: "string" } }, required: [argument] };
  return { type: "function", function: { name, description: `runs ${name}`, parameters } };
}

const ENVIRONMENTS: EnvironmentKind[] = [
  { name: "python-tool", label: "Python tool (math word problems)", description: "math with Python", family: "math-word", tools: [tool("python", "code")], default_limits: LIMITS },
  { name: "sql-tool", label: "SQL tool (SQL questions)", description: "queries first", family: "sql-query", tools: [tool("sql", "query")], default_limits: LIMITS },
];

const EPISODE: Episode = {
  environment: "sql-tool",
  messages: [
    { role: "system", content: "You can query the database." },
    { role: "user", content: "List the names of employees whose salary is above 60000." },
    {
      role: "assistant",
      content: '<tool_call>{"name": "sql", "arguments": {"query": "SELECT name, salary FROM employees"}}</tool_call>',
      verdict: { error: null, info: { calls: 1 } },
    },
    { role: "tool", content: '3 row(s):\n["Ada", 61000]', tool_call_id: "call_1_0", name: "sql" },
    { role: "assistant", content: "```sql\nSELECT name FROM employees\n```", verdict: { error: null, info: { answered: true } } },
  ],
  tools: [tool("sql", "query")],
  turns: 2,
  turn_budget: 4,
  ended_by: "environment",
  final_state: { answer: "```sql\nSELECT name FROM employees\n```" },
  verdict: { ...VERDICT, parts: { outcome: 0, process: 0.5, constraint: 1, tool_format: 1, tool_success: 1, valid_moves: 1 } },
  seconds: 0.05,
  spec_hash: "b".repeat(64),
};

describe("verifier episodes", { timeout: 15_000 }, () => {
  it("plays a scripted episode through the chosen environment and shows the conversation and verdict", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/verifiers/1/": { body: VERIFIER },
      "GET /api/v1/verifier-kinds/": { body: KINDS },
      "GET /api/v1/sandbox/": { body: SANDBOX },
      "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1)] },
      "GET /api/v1/example-proposals/": { body: paginated([]) },
      "GET /api/v1/environment-kinds/": { body: ENVIRONMENTS },
      "POST /api/v1/verifiers/playground/episode/": { body: EPISODE },
    });
    renderApp("/verifiers/1/episodes");
    const user = userEvent.setup();
    const select = await screen.findByLabelText("Environment", {}, { timeout: 5000 });
    await user.selectOptions(select, "sql-tool");
    const form = screen.getByRole("form", { name: "Episode playground" });
    expect(within(form).getByLabelText("Turn 1")).toHaveValue(
      '<tool_call>{"name":"sql","arguments":{"query":"SELECT name, salary FROM employees"}}</tool_call>',
    );
    expect((within(form).getByLabelText("Expected (JSON object)") as HTMLTextAreaElement).value).toContain("expected_rows");
    await user.click(within(form).getByRole("button", { name: "Add turn" }));
    await user.type(within(form).getByLabelText("Turn 3"), "never sent");
    await user.click(within(form).getByRole("button", { name: "Remove turn 3" }));
    await user.click(within(form).getByRole("button", { name: "Play episode" }));

    const conversation = await screen.findByRole("list", { name: "Episode conversation" });
    expect(within(conversation).getByLabelText("Turn 1")).toHaveTextContent("clean turn");
    expect(conversation).toHaveTextContent('["Ada", 61000]');
    expect(screen.getByText("2 turns of a budget of 4 · ended by environment")).toBeInTheDocument();
    expect(screen.getByRole("region", { name: "Verdict" })).toHaveTextContent("tool_format");

    const body = requests.find((r) => r.path === "/api/v1/verifiers/playground/episode/")?.body as Record<string, unknown>;
    expect(body.environment).toBe("sql-tool");
    expect(body.script).toHaveLength(2);
    expect(body.prompt).toBe("List the names of employees whose salary is above 60000.");
    expect((body.expected as Record<string, unknown>).expected_rows).toEqual([["Ada"], ["Grace"]]);
    expect(body.spec).toBeDefined(); // the builder's draft judges
  });
});
