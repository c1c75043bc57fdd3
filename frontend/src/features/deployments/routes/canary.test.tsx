import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { canary, deployment, servedRequest } from "../testing/fixtures";

class FakeSocket {
  static all: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: unknown }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  close() {}
  send() {}
}

beforeEach(() => {
  FakeSocket.all = [];
  vi.stubGlobal("WebSocket", FakeSocket);
});
afterEach(() => vi.unstubAllGlobals());

const REPORT = {
  canary: 3,
  deployment: "sorter",
  mode: "split",
  steps: [5, 25, 50],
  state: "running",
  outcome: "collecting",
  started_at: "2026-01-01T00:00:00Z",
  finished_at: null,
  production: { id: 1, number: 1, label: "sorter v1", checkpoint: 11, base_model: "", evaluation_report: 7 },
  candidate: { id: 2, number: 2, label: "sorter v2", checkpoint: 12, base_model: "", evaluation_report: null },
  history: canary().history,
};

describe("Canary page", () => {
  it("says how many shadow copies the candidate's full queue dropped", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/canaries/3/": { body: canary({ mode: "shadow", shadow_dropped: 17 }) },
      "GET /api/v1/canaries/3/report/": { body: { ...REPORT, mode: "shadow", shadow_dropped: 17 } },
      "GET /api/v1/deployments/sorter/requests/": { body: paginated([]) },
      "GET /api/v1/deployments/sorter/": { body: deployment() },
    });
    renderApp("/canaries/3");
    const candidate = await screen.findByRole("region", { name: "Candidate" });
    expect(candidate).toHaveTextContent("Copies dropped (queue full)17");
    expect(screen.getByRole("region", { name: "Production" })).not.toHaveTextContent("Copies dropped");
  });

  it("says how many more answers the running step needs to be decided", async () => {
    const needed = { answers: 330, requests: 6600, outcome: "successful", detail: "needs about 330 more candidate answers" };
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/canaries/3/": { body: canary({ analysis: { ...canary().analysis, needed } }) },
      "GET /api/v1/canaries/3/report/": { body: REPORT },
      "GET /api/v1/deployments/sorter/requests/": { body: paginated([]) },
      "GET /api/v1/deployments/sorter/": { body: deployment() },
    });
    renderApp("/canaries/3");
    const line = await screen.findByLabelText("Traffic needed");
    expect(line).toHaveTextContent("Needs about 330 more answers to decide this step (about 6,600 requests at 25% to the candidate)");
    expect(line).toHaveTextContent("it would then be successful");
  });

  it("says nothing about traffic once the step no longer collects", async () => {
    const needed = { answers: 0, requests: 0, outcome: "successful", detail: "" };
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/canaries/3/": { body: canary({ analysis: { ...canary().analysis, needed } }) },
      "GET /api/v1/canaries/3/report/": { body: REPORT },
      "GET /api/v1/deployments/sorter/requests/": { body: paginated([]) },
      "GET /api/v1/deployments/sorter/": { body: deployment() },
    });
    renderApp("/canaries/3");
    expect(await screen.findByLabelText("Canary reason")).toBeInTheDocument();
    expect(screen.queryByLabelText("Traffic needed")).toBeNull();
  });

  it("shows the state, steps, both sides, the chart, the checks and the report", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/canaries/3/": { body: canary() },
      "GET /api/v1/canaries/3/report/": { body: REPORT },
      "GET /api/v1/deployments/sorter/requests/": { body: paginated([servedRequest({ canary: 3, side: "candidate" })]) },
      "GET /api/v1/deployments/sorter/": { body: deployment() },
    });
    renderApp("/canaries/3");
    expect(await screen.findByRole("heading", { name: "Canary 3", level: 1 })).toBeInTheDocument();
    expect(await screen.findByLabelText("Canary state")).toHaveTextContent("running");
    expect(screen.getByLabelText("Canary reason")).toHaveTextContent("collecting: 12 of 40 verified requests");
    const steps = screen.getByRole("list", { name: "Steps" });
    const items = within(steps).getAllByRole("listitem");
    expect(items.map((i) => i.textContent)).toEqual(["5%", "25%", "50%"]);
    expect(items[0]).toHaveAttribute("data-status", "passed");
    expect(items[1]).toHaveAttribute("aria-current", "step");
    expect(items[2]).not.toHaveAttribute("aria-current");
    const production = screen.getByRole("region", { name: "Production" });
    expect(production).toHaveTextContent("sorter v1");
    expect(production).toHaveTextContent("80.0%");
    expect(production).toHaveTextContent("120 ms");
    expect(screen.getByRole("region", { name: "Candidate" })).toHaveTextContent("75.0%");
    expect(screen.getByRole("region", { name: "Candidate" })).not.toHaveTextContent("Copies dropped");
    const chart = screen.getByRole("figure", { name: "Pass rate over time" });
    expect(chart).toHaveAttribute("data-points", "3");
    expect(chart.querySelector('[data-series="candidate"]')?.getAttribute("d")).toMatch(/^M.*L/);
    expect(chart).toHaveTextContent("−2.0 pts, confidence interval −20.0 pts to +15.0 pts");
    const checks = screen.getByRole("table", { name: "Guardrail checks" });
    expect(within(checks).getAllByRole("row")).toHaveLength(3);
    expect(checks).toHaveTextContent("error_rate");
    expect(screen.getByRole("button", { name: "Pause" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Proceed" })).toBeNull();
    const report = screen.getByRole("region", { name: "Canary report" });
    expect(report).toHaveTextContent("the candidate held up at 5%");
    expect(report).toHaveTextContent("decided by analysis");
    expect(await within(report).findByRole("link", { name: "Production's evaluation report" })).toHaveAttribute("href", "/reports/7");
    expect(within(report).queryByRole("link", { name: "Candidate's evaluation report" })).toBeNull();
    expect(screen.getByRole("link", { name: "← Back to Sorter (sorter)" })).toHaveAttribute("href", "/deployments/sorter");
    // Names a browser test looks up by substring match only once each.
    for (const name of [/canary state/i, /canary reason/i, /pass rate over time/i, /guardrail checks/i, /^steps/i]) {
      expect(screen.getAllByLabelText(name)).toHaveLength(1);
    }
    expect(await screen.findByRole("table", { name: "Canary requests" })).toHaveTextContent("candidate");
    expect(requests.some((r) => r.path === "/api/v1/deployments/sorter/requests/" && r.search.includes("canary=3"))).toBe(true);
  });

  it("follows the canary's websocket, and decides one awaiting a decision", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/canaries/3/": { body: canary() },
      "GET /api/v1/canaries/3/report/": { body: REPORT },
      "POST /api/v1/canaries/3/decide/": { body: canary({ state: "promoted", step: 2, share: 50, reason: "promoted by ada" }) },
    });
    renderApp("/canaries/3");
    expect(await screen.findByLabelText("Canary state")).toHaveTextContent("running");
    await waitFor(() => expect(FakeSocket.all.length).toBeGreaterThan(0));
    const socket = FakeSocket.all.at(-1)!;
    expect(socket.url).toMatch(/\/ws\/canaries\/3\/$/);
    act(() => {
      socket.onopen?.();
      socket.onmessage?.({
        data: JSON.stringify({
          type: "canary",
          canary: canary({ state: "awaiting_decision", revision: 5, reason: "inconclusive after 400 samples" }),
        }),
      });
    });
    expect(await screen.findByLabelText("Canary state")).toHaveTextContent("awaiting decision");
    expect(screen.getByLabelText("Canary reason")).toHaveTextContent("inconclusive after 400 samples");
    expect(screen.getByRole("button", { name: "Extend step" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Roll back" })).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText("Reason"), { target: { value: "looks fine" } });
    fireEvent.click(screen.getByRole("button", { name: "Proceed" }));
    await waitFor(() =>
      expect(requests.find((r) => r.path.endsWith("/decide/"))?.body).toEqual({ decision: "proceed", reason: "looks fine" }),
    );
    expect(await screen.findByLabelText("Canary state")).toHaveTextContent("promoted");
    expect(screen.queryByRole("button", { name: "Proceed" })).toBeNull();
    const items = within(screen.getByRole("list", { name: "Steps" })).getAllByRole("listitem");
    expect(items.every((i) => i.getAttribute("data-status") === "passed")).toBe(true);
  });
});
