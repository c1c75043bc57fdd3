import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { evaluationJob, REPORT_ROW } from "../testing/fixtures";

const JOBS = [evaluationJob(1, "tiny", [3]), evaluationJob(2, "sort run 3, step 40", [3]), evaluationJob(4, "other", [9])];

describe("Compare evaluations", () => {
  it("offers only baselines on the candidate's pool versions, makes the report and opens it", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/evaluations/": { body: paginated(JOBS) },
      "POST /api/v1/reports/": { status: 201, body: REPORT_ROW },
    });
    const { router } = renderApp("/reports/new");
    const form = await screen.findByRole("form", { name: "Compare evaluations" }, { timeout: 4000 });
    expect(requests.find((r) => r.path === "/api/v1/evaluations/")?.search).toContain("state=succeeded");
    const baseline = within(form).getByLabelText("Baseline");
    expect(baseline).toBeDisabled();
    fireEvent.change(within(form).getByLabelText("Candidate"), { target: { value: "2" } });
    expect(within(baseline).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "Choose the baseline…",
      "#1 tiny — f3 v1",
    ]);
    expect(form).toHaveTextContent("1 other evaluation left out: they evaluated none of the candidate's pool versions.");
    fireEvent.change(baseline, { target: { value: "1" } });
    fireEvent.click(within(form).getByRole("button", { name: "Make the report" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/reports/12"));
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({ candidate: 2, baseline: 1 });
  });

  it("shows the server's refusal under the field it names", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/evaluations/": { body: paginated(JOBS) },
      "POST /api/v1/reports/": {
        status: 400,
        body: { errors: [{ field: "baseline", code: "invalid", message: "evaluation 1 shares no held-out task with evaluation 2" }] },
      },
    });
    renderApp("/reports/new?candidate=2&baseline=1");
    const button = await screen.findByRole("button", { name: "Make the report" }, { timeout: 4000 });
    fireEvent.click(button);
    expect(await screen.findByText("evaluation 1 shares no held-out task with evaluation 2")).toBeInTheDocument();
    expect(screen.getByLabelText("Baseline")).toHaveAttribute("aria-invalid", "true");
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({ candidate: 2, baseline: 1 });
  });

  it("says two finished evaluations are needed when there are fewer", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/evaluations/": { body: paginated([JOBS[0]]) },
    });
    renderApp("/reports/new");
    expect(await screen.findByText("Two finished evaluations are needed", {}, { timeout: 4000 })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Start an evaluation" })).toHaveAttribute("href", "/evaluations/new");
  });

  it("says which named evaluations are still running, linking each", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/evaluations/": { body: paginated(JOBS) },
    });
    renderApp("/reports/new?candidate=21&baseline=1");
    const status = (await screen.findByText(/^Waiting for/, {}, { timeout: 4000 })).closest("[role=status]") as HTMLElement;
    expect(status).toHaveTextContent("Waiting for evaluation #21 to finish: it is offered here once succeeded.");
    expect(within(status).getByRole("link", { name: "evaluation #21" })).toHaveAttribute("href", "/evaluations/21");
  });
});
