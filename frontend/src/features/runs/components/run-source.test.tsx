import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderWithProviders } from "@/testing/render";

import type { Run } from "../api/types";
import { RUN } from "../testing/fixtures";
import { RunsTable } from "./runs-table";
import { LostWorkerNotice, RunSummary } from "./run-summary";

const NOW = new Date("2026-01-01T10:10:00Z");

const OUTSIDE: Run = {
  ...RUN,
  id: 12,
  experiment: null,
  experiment_name: null,
  title: "trl-grpo",
  source: "external",
  name: "trl-grpo",
  base_model: "Qwen/Qwen2-0.5B",
  worker: "",
  attempts: 1,
  resumed_from_step: null,
  heartbeat_at: "2026-01-01T09:00:00Z",
};

describe("an outside run", () => {
  it("is listed by its name with a source badge and no experiment link", () => {
    renderWithProviders(<RunsTable runs={[OUTSIDE, RUN]} selected={new Set()} onToggle={() => {}} now={NOW} />);
    const row = screen.getByRole("link", { name: "trl-grpo #2" }).closest("tr") as HTMLElement;
    expect(within(row).getByText("source: external")).toBeInTheDocument();
    expect(within(row).queryByRole("link", { name: "experiment" })).toBeNull();
    expect(within(row).getByText("outside trainer")).toBeInTheDocument();
    const platform = screen.getByRole("link", { name: "Digit sort #2" }).closest("tr") as HTMLElement;
    expect(within(platform).queryByText("source: external")).toBeNull();
  });

  it("shows its source and base model, and no experiment, in its summary", () => {
    renderWithProviders(<RunSummary run={OUTSIDE} now={NOW} />);
    expect(screen.getByTestId("run-source")).toHaveTextContent("source: external · from Qwen/Qwen2-0.5B");
    expect(screen.getByText("none")).toBeInTheDocument();
  });

  it("is never taken for a lost worker, however long its trainer is silent", () => {
    renderWithProviders(<LostWorkerNotice run={OUTSIDE} now={NOW} />);
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

describe("an outside run of unknown length", () => {
  it("counts its steps without a total", () => {
    const run = { ...OUTSIDE, max_steps: 0, step: 37 };
    renderWithProviders(<RunsTable runs={[run]} selected={new Set()} onToggle={() => {}} now={NOW} />);
    expect(screen.getByRole("progressbar", { name: "trl-grpo #2 progress" })).toHaveAttribute("aria-valuetext", "step 37");
    expect(screen.getByText("step 37")).toBeInTheDocument();
  });
});
