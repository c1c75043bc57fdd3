import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { thisMonth } from "./usage";

const totals = (worker_seconds: number, cost: number) => ({ worker_seconds, generated_tokens: 1_200, judge_tokens: 40, cost });

const USAGE = {
  team: "core",
  month: thisMonth(),
  currency: "EUR",
  totals: totals(9000, 5),
  by_queue: [
    { key: "gpu", ...totals(7200, 4) },
    { key: "cpu", ...totals(1800, 1) },
  ],
  by_kind: [{ key: "training", label: "Training", ...totals(9000, 5) }],
  by_family: [{ key: "digits", ...totals(9000, 5) }],
  by_run: [{ run: 7, experiment_name: "Digit sort", number: 2, state: "paused", ...totals(7200, 4) }],
  quota: { max_concurrent_runs: 2, active_runs: 2, max_worker_hours_per_month: 10, used_worker_hours: 2.5 },
  rates: [{ queue: "gpu", per_worker_hour: 2, per_million_generated_tokens: 0, per_million_judge_tokens: 0, currency: "EUR" }],
};

describe("Usage page", () => {
  it("shows the team's month by queue, family and run, with its quota", async () => {
    const { requests } = mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/usage/": { body: USAGE } });
    renderApp("/usage");
    const totalsList = await screen.findByLabelText("Totals", {}, { timeout: 4000 });
    expect(totalsList).toHaveTextContent("2.5 h");
    expect(totalsList).toHaveTextContent("5.00 EUR");
    expect(requests.find((r) => r.path === "/api/v1/usage/")?.search).toBe(`?team=core&month=${thisMonth()}`);
    expect(screen.getByRole("table", { name: "By queue" })).toHaveTextContent("gpu2 h");
    expect(within(screen.getByRole("table", { name: "By run" })).getByRole("link", { name: "Digit sort #2" })).toHaveAttribute("href", "/runs/7");
    expect(screen.getByRole("progressbar", { name: "Runs at once" })).toHaveAttribute("aria-valuenow", "2");
    expect(screen.getByText("2.5 h of 10 h")).toBeInTheDocument();
  });

  it("names each kind of work: evaluation, pre-flight and serving replicas beside training", async () => {
    const by_kind = [
      { key: "training", label: "Training", ...totals(7200, 4) },
      { key: "serving", label: "Serving replica hours", ...totals(3600, 2) },
      { key: "evaluation", label: "Evaluation", ...totals(900, 0.5) },
      { key: "preflight", label: "Pre-flight", ...totals(300, 0.2) },
    ];
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/usage/": { body: { ...USAGE, by_kind } } });
    renderApp("/usage");
    const kinds = await screen.findByRole("table", { name: "By kind of work" }, { timeout: 4000 });
    const rows = within(kinds).getAllByRole("row").slice(1);
    expect(rows.map((r) => within(r).getAllByRole("cell")[0]?.textContent)).toEqual(["Training", "Serving replica hours", "Evaluation", "Pre-flight"]);
    expect(rows[1]).toHaveTextContent("1 h");
  });
});
