import { fireEvent, screen, within } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderWithProviders } from "@/testing/render";

import { CheckpointPicker } from "./checkpoint-picker";

const RUNS = [
  { id: 4, experiment_name: "sort-grpo", number: 2, state: "running" },
  { id: 3, experiment_name: "sort-grpo", number: 1, state: "succeeded" },
];
const CHECKPOINTS = [
  { id: 13, step: 20, name: "step-000020", promotion: null },
  { id: 14, step: 40, name: "step-000040", promotion: { report: 7 } },
];

function Picker({ initial = "" }: { initial?: string }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <CheckpointPicker value={value} onChange={setValue} />
      <output aria-label="Chosen">{value}</output>
    </>
  );
}

describe("Checkpoint picker", () => {
  it("lists the team's runs, then the chosen run's checkpoints, newest first", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/runs/": { body: paginated(RUNS) },
      "GET /api/v1/runs/3/checkpoints/": { body: CHECKPOINTS },
    });
    renderWithProviders(<Picker />);
    const checkpoint = screen.getByLabelText("Checkpoint", { exact: true });
    expect(checkpoint).toBeDisabled();
    await screen.findByRole("option", { name: "sort-grpo · run 1 (succeeded)" }, { timeout: 4000 });
    expect(requests.find((r) => r.path === "/api/v1/runs/")?.search).toContain("team=");
    fireEvent.change(screen.getByLabelText("Run", { exact: true }), { target: { value: "3" } });
    await screen.findByRole("option", { name: "step 40 (step-000040) · promoted" });
    expect(within(checkpoint).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "Choose a checkpoint…",
      "step 40 (step-000040) · promoted",
      "step 20 (step-000020)",
    ]);
    fireEvent.change(checkpoint, { target: { value: "13" } });
    expect(screen.getByLabelText("Chosen")).toHaveTextContent("13");
    // Another run clears the choice: a checkpoint belongs to one run.
    fireEvent.change(screen.getByLabelText("Run", { exact: true }), { target: { value: "4" } });
    expect(screen.getByLabelText("Chosen")).toHaveTextContent("");
  });

  it("shows a checkpoint given by a link before any run is chosen", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/runs/": { body: paginated(RUNS) } });
    renderWithProviders(<Picker initial="12" />);
    const checkpoint = screen.getByLabelText("Checkpoint", { exact: true });
    expect(checkpoint).toBeEnabled();
    expect(checkpoint).toHaveValue("12");
    expect(within(checkpoint).getByRole("option", { name: "checkpoint 12" })).toBeInTheDocument();
  });

  it("points at a new experiment when the team has no run yet", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/runs/": { body: paginated([]) } });
    renderWithProviders(<Picker />);
    expect(await screen.findByRole("link", { name: "launch an experiment" }, { timeout: 4000 })).toHaveAttribute(
      "href",
      "/experiments/new",
    );
  });
});
