import { screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { FakeUPlot } from "@/testing/fake-uplot";
import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { COMPARISON, METRICS } from "../testing/fixtures";

vi.mock("uplot", () => import("@/testing/fake-uplot"));

describe("Compare runs", () => {
  beforeEach(() => FakeUPlot.reset());

  it("overlays each metric of the runs, with final metrics and configuration differences", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/runs/compare/": { body: COMPARISON },
      "GET /api/v1/runs/7/metrics/": { body: METRICS },
      "GET /api/v1/runs/8/metrics/": {
        body: { ...METRICS, run: 8, points: { kl: { step: [0, 5], value: [0.5, 0.6], wall_time: [1, 2], tokens: [1, 2], total: 2, downsampled: false } } },
      },
    });
    renderApp("/runs/compare?ids=7,8");
    const kl = await screen.findByRole("img", { name: "kl" }, { timeout: 5000 });
    const figure = kl.closest("figure")!;
    await waitFor(() => expect(FakeUPlot.live().find((p) => figure.contains(p.over))).toBeDefined());
    const plot = FakeUPlot.live().find((p) => figure.contains(p.over))!;
    expect(plot.options.series.map((s) => s.label).slice(0, 3)).toEqual(["Step", "Digit sort #2", "Digit sort (clone) #1"]);
    expect(plot.data[0]).toEqual([0, 1, 2, 5]);
    expect(Array.from(plot.data[2] as ArrayLike<unknown>)).toEqual([0.5, undefined, undefined, 0.6]);
    expect(requests.find((r) => r.path === "/api/v1/runs/compare/")?.search).toBe("?ids=7%2C8");

    const finals = screen.getByRole("table", { name: "Final metrics" });
    expect(within(finals).getByText("reward/mean").closest("tr")).toHaveTextContent("0.810.42");
    const config = screen.getByRole("table", { name: "Configuration differences" });
    expect(within(config).getByText("hyperparameters.learning_rate").closest("tr")).toHaveTextContent("0.00050.001");
    expect(screen.getByRole("link", { name: "Digit sort (clone) #1" })).toHaveAttribute("href", "/runs/8");
  });

  it("asks for two runs or more", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME } });
    renderApp("/runs/compare?ids=7");
    expect(await screen.findByText("Pick two runs or more", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Choose runs" })).toHaveAttribute("href", "/runs");
  });
});
