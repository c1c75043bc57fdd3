import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

const EVENTS = [
  {
    id: 40, actor: "alice", action: "report.approve", target_type: "experiments.evaluationreport", target_id: "12",
    target_label: "run 3 vs base", target_path: "/reports/12", team: "core", created_at: "2026-01-02T00:00:00Z", changes: { note: "" },
  },
  {
    id: 39, actor: null, action: "run.state_changed", target_type: "experiments.run", target_id: "3",
    target_label: "", target_path: null, team: "core", created_at: "2026-01-01T00:00:00Z", changes: {},
  },
];

describe("Audit page", () => {
  it("writes each event as a sentence, filters on the server and pages", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/audit/actions/": { body: ["report.approve", "run.state_changed"] },
      "GET /api/v1/audit/": (request) => ({
        body: { count: 60, next: null, previous: null, results: request.search.includes("actor=alice") ? [EVENTS[0]] : EVENTS },
      }),
    });
    renderApp("/audit");
    const table = await screen.findByRole("table", { name: "Audit events" }, { timeout: 4000 });
    const approved = within(table).getByLabelText("alice approved report #12 (run 3 vs base)");
    expect(within(approved).getByRole("link", { name: "#12 (run 3 vs base)" })).toHaveAttribute("href", "/reports/12");
    expect(within(table).getByLabelText("the system run state changed on #3")).toBeInTheDocument();
    expect(screen.getByText("Page 1 of 3 (60 events)")).toBeInTheDocument();

    fireEvent.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(requests.at(-1)?.search).toContain("page=2"));

    const filters = screen.getByRole("search", { name: "Audit filters" });
    fireEvent.change(within(filters).getByLabelText("Actor"), { target: { value: "alice" } });
    fireEvent.change(within(filters).getByLabelText("Object type"), { target: { value: "experiments.evaluationreport" } });
    fireEvent.change(within(filters).getByLabelText("Action"), { target: { value: "report.approve" } });
    fireEvent.change(within(filters).getByLabelText("From"), { target: { value: "2026-01-01T00:00" } });
    await waitFor(() => {
      const query = new URLSearchParams(requests.at(-1)?.search);
      expect(query.get("actor")).toBe("alice");
      expect(query.get("target_type")).toBe("experiments.evaluationreport");
      expect(query.get("action")).toBe("report.approve");
      expect(query.get("since")).toBe(new Date("2026-01-01T00:00").toISOString());
      expect(query.get("page")).toBe("1");
    });
    await waitFor(() => expect(within(screen.getByRole("table", { name: "Audit events" })).getAllByRole("row")).toHaveLength(2));
  });

  it("is in the navigation", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/audit/actions/": { body: [] },
      "GET /api/v1/audit/": { body: { count: 0, next: null, previous: null, results: [] } },
    });
    renderApp("/audit");
    expect(await screen.findByText("No event matches", {}, { timeout: 4000 })).toBeInTheDocument();
    expect(within(screen.getByRole("navigation", { name: "Main" })).getByRole("link", { name: "Audit log" })).toHaveAttribute("href", "/audit");
  });
});
