import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { ExampleProposal } from "../api/example-proposals";
import { EXAMPLES, KINDS, SANDBOX, VERIFIER, versionOf } from "../testing-fixtures";

function proposal(id: number, changes: Partial<ExampleProposal> = {}): ExampleProposal {
  return {
    id,
    verifier: 1,
    verifier_name: VERIFIER.name,
    version: 31,
    version_number: 1,
    response: "1 23",
    expected: { answer: "123" },
    label: "good",
    judged_passed: false,
    judged_error_type: "wrong_answer",
    judged_reward: 0,
    note: "a space is fine",
    source: "rollout:77",
    source_label: "Sort run #2, step 14, group 0, sample 1",
    source_path: "/runs/2/rollouts?step=14",
    status: "proposed",
    created_by: "ada",
    created_at: "2026-01-03T00:00:00Z",
    decided_by: null,
    decided_at: null,
    decision_note: "",
    example: null,
    ...changes,
  } as ExampleProposal;
}

describe("proposed examples on the verifier's page", { timeout: 15_000 }, () => {
  it("lists flagged verdicts with where they were seen, and accepts one as a labelled example", async () => {
    let accepted = false;
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/verifiers/1/": { body: VERIFIER },
      "GET /api/v1/verifier-kinds/": { body: KINDS },
      "GET /api/v1/sandbox/": { body: SANDBOX },
      "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1)] },
      "GET /api/v1/verifiers/1/examples/": { body: EXAMPLES },
      "GET /api/v1/example-proposals/": () => ({
        body: paginated([accepted ? proposal(3, { status: "accepted", decided_by: "ada", example: 40 }) : proposal(3), proposal(2, { status: "rejected", decided_by: "bob" })]),
      }),
      "POST /api/v1/example-proposals/3/accept/": () => {
        accepted = true;
        return { body: proposal(3, { status: "accepted" }) };
      },
    });
    renderApp("/verifiers/1/examples");
    const table = await screen.findByRole("table", { name: "Proposed examples" }, { timeout: 5000 });
    const row = within(table).getByText("1 23").closest("tr")!;
    expect(row).toHaveTextContent("known good");
    expect(row).toHaveTextContent("failed wrong_answer by v1");
    expect(within(row).getByRole("link", { name: "Sort run #2, step 14, group 0, sample 1" })).toHaveAttribute("href", "/runs/2/rollouts?step=14");
    expect(screen.getByText("1 decided")).toBeInTheDocument();
    expect(requests.find((r) => r.path === "/api/v1/example-proposals/")?.search).toContain("verifier=1");

    await userEvent.setup().click(within(row).getByRole("button", { name: "Accept proposal 3" }));
    await waitFor(() => expect(screen.getByText("Nothing waits for a decision.")).toBeInTheDocument());
    expect(screen.getByText("2 decided")).toBeInTheDocument();
    expect(requests.some((r) => r.method === "POST" && r.path === "/api/v1/example-proposals/3/accept/")).toBe(true);
    // The examples refresh: the accepted one is counted in the next evaluation.
    expect(requests.filter((r) => r.path === "/api/v1/verifiers/1/examples/").length).toBeGreaterThan(1);
  });

  it("shows nothing when no verdict was ever flagged", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/verifiers/1/": { body: VERIFIER },
      "GET /api/v1/verifier-kinds/": { body: KINDS },
      "GET /api/v1/verifiers/1/examples/": { body: EXAMPLES },
      "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1)] },
      "GET /api/v1/example-proposals/": { body: paginated([]) },
    });
    renderApp("/verifiers/1/examples");
    await screen.findByRole("table", { name: "Labelled examples" }, { timeout: 5000 });
    expect(screen.queryByText(/Proposed from runs/)).not.toBeInTheDocument();
  });
});
