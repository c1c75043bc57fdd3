import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { ALGORITHMS, EXPERIMENT, EXPERIMENT_RUN, POOL_VERSION, VERIFIERS } from "../testing/fixtures";

const CLONE = { ...EXPERIMENT, id: 4, name: "Digit sort, faster", parent: 3 };

function detailApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/experiments/3/": { body: EXPERIMENT },
    "GET /api/v1/experiments/": { body: paginated([EXPERIMENT, CLONE]) },
    "GET /api/v1/runs/": { body: paginated([EXPERIMENT_RUN]) },
    "GET /api/v1/pool-versions/": { body: paginated([POOL_VERSION]) },
    "GET /api/v1/verifiers/": { body: paginated(VERIFIERS) },
    "GET /api/v1/algorithms/": { body: ALGORITHMS },
    ...extra,
  });
}

describe("Experiment page", () => {
  it("shows its runs and its configuration, with ways to clone and launch", async () => {
    const { requests } = detailApi();
    renderApp("/experiments/3");
    const run = await screen.findByRole("link", { name: "Run #1" }, { timeout: 5000 });
    expect(run).toHaveAttribute("href", "/runs/7");
    expect(run.closest("tr")).toHaveTextContent("Succeeded");
    expect(requests.find((r) => r.path === "/api/v1/runs/")?.search).toContain("experiment=3");
    const families = screen.getByRole("table", { name: "Families" });
    expect(await within(families).findByRole("link", { name: "digits · v1" })).toBeInTheDocument();
    expect(within(families).getByRole("link", { name: "Exact sort · v3" })).toHaveAttribute("href", "/verifiers/2");
    expect(screen.getByRole("link", { name: "Clone and edit" })).toHaveAttribute("href", "/experiments/new?from=3");
    expect(screen.getByRole("link", { name: "curriculum 4" })).toHaveAttribute("href", "/curricula/4");
  });

  it("diffs its configuration against another experiment", async () => {
    const { requests } = detailApi({
      "GET /api/v1/experiments/3/diff/": {
        body: { experiment: 3, other: 4, changes: [{ path: "hyperparameters.learning_rate", old: 0.0005, new: 0.001 }] },
      },
    });
    renderApp("/experiments/3");
    const user = userEvent.setup();
    await screen.findByRole("option", { name: "Digit sort, faster" }, { timeout: 5000 });
    await user.selectOptions(screen.getByLabelText("Compare with"), "4");
    const table = await screen.findByRole("table", { name: "Configuration differences" });
    expect(within(table).getByText("hyperparameters.learning_rate").closest("tr")).toHaveTextContent("0.00050.001");
    await waitFor(() => expect(requests.find((r) => r.path === "/api/v1/experiments/3/diff/")?.search).toBe("?other=4"));
  });

  it("launches a run and opens it", async () => {
    const run = { ...EXPERIMENT_RUN, id: 9, state: "queued" };
    detailApi({
      "POST /api/v1/experiments/3/launch/": { status: 202, body: run },
      "GET /api/v1/runs/9/": { body: { ...run, log_tail: "" } },
      "GET /api/v1/runs/9/metrics/": { body: { run: 9, state: "queued", seq: 0, keys: [], points: {} } },
    });
    const { router } = renderApp("/experiments/3");
    const user = userEvent.setup();
    await user.click((await screen.findAllByRole("button", { name: "Launch run" }, { timeout: 5000 }))[0]!);
    await waitFor(() => expect(router.state.location.pathname).toBe("/runs/9"));
  });
});
