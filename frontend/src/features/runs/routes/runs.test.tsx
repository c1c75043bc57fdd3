import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { FAILED_RUN, listItem, RUN } from "../testing/fixtures";

describe("Runs list", () => {
  it("explains runs when there are none and links to a new experiment", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/runs/": { body: paginated([]) } });
    renderApp("/runs");
    expect(await screen.findByText("No runs yet", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getAllByRole("link", { name: "New experiment" })[0]).toHaveAttribute("href", "/experiments/new");
  });

  it("shows each run's state, progress and worker, and compares the ticked ones", async () => {
    const other = listItem(FAILED_RUN, { id: 8, number: 3, worker: "celery@gpu-2" });
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/runs/": { body: paginated([listItem(RUN), other]) },
    });
    const { router } = renderApp("/runs");
    const link = await screen.findByRole("link", { name: "Digit sort #2" }, { timeout: 5000 });
    expect(link).toHaveAttribute("href", "/runs/7");
    const row = link.closest("tr")!;
    expect(within(row).getByText("Running")).toBeInTheDocument();
    expect(within(row).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "37");
    expect(row).toHaveTextContent("celery@gpu-1");
    expect(row).toHaveTextContent("0.55");
    expect(within(screen.getByRole("link", { name: "Digit sort #3" }).closest("tr")!).getByText("Failed")).toBeInTheDocument();
    expect(requests.find((r) => r.path === "/api/v1/runs/")?.search).toContain("team=core");

    const user = userEvent.setup();
    const compare = screen.getByRole("button", { name: /Compare/ });
    expect(compare).toBeDisabled();
    await user.click(screen.getByRole("checkbox", { name: "Select Digit sort #2" }));
    await user.click(screen.getByRole("checkbox", { name: "Select Digit sort #3" }));
    await user.click(screen.getByRole("button", { name: "Compare 2 runs" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/runs/compare"));
    expect(router.state.location.search).toBe("?ids=7,8");
  });

  it("filters by state", async () => {
    const { requests } = mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/runs/": { body: paginated([listItem(RUN)]) } });
    renderApp("/runs");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Failed" }, { timeout: 5000 }));
    await waitFor(() => expect(requests.at(-1)?.search).toContain("state=failed"));
  });
});
