import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

const profile = {
  by_difficulty: { digits: [{ difficulty: 2, success: 0.5, tasks: 10 }, { difficulty: 3, success: 0.25, tasks: 10 }] },
  errors_by_layer: { digits: { semantic: { wrong_answer: 30 } } },
  worst_tasks: [{ task_hash: "abcdef0123456789", family: "digits", difficulty: 3, passes: 0, k: 4, success: 0, errors: { "semantic/wrong_answer": 4 } }],
  pass_at_k: { digits: { k: 4, pass_at_1: 0.375, pass_at_k: 0.6 } },
};

const REPORT = {
  id: 5,
  team: "core",
  candidate: 2,
  baseline: 1,
  candidate_subject: "sort run 1, step 40",
  baseline_subject: "tiny-digit-sort",
  lineage: "sort run 1, step 40 vs tiny-digit-sort",
  version: 2,
  headline: "regressed: add (−8.0 pts, CI [−12.0, −4.0])",
  state: "in_review",
  created_by: "grace",
  created_at: "2026-01-01T00:00:00Z",
  submitted_at: "2026-01-01T00:00:00Z",
  decided_at: null,
  figures: {
    headline: "regressed: add (−8.0 pts, CI [−12.0, −4.0])",
    families: [
      { family: "add", tasks: 50, candidate: 0.4, baseline: 0.48, difference: -0.08, low: -0.12, high: -0.04, threshold_pts: 2, verdict: "regressed" },
      { family: "digits", tasks: 50, candidate: 0.6, baseline: 0.3, difference: 0.3, low: 0.2, high: 0.4, threshold_pts: 2, verdict: "improved" },
    ],
    candidate_profile: profile,
    baseline_profile: profile,
    settings: { k: 4, temperature: 1, bootstrap_resamples: 2000, confidence: 0.95, seed: 0 },
  },
  comments: [
    { id: 1, parent: null, family: "add", author: "grace", body: "add dropped", created_at: "2026-01-01T00:00:00Z" },
    { id: 2, parent: 1, family: "add", author: "ada", body: "looking", created_at: "2026-01-01T00:01:00Z" },
  ],
  reviews: [],
  required_approvals: 1,
  authors_may_approve: false,
};

describe("Report page", () => {
  it("shows the headline, each family's interval and verdict, and lets a reviewer approve", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/reports/5/": { body: REPORT },
      "POST /api/v1/reports/5/review/": { body: { ...REPORT, state: "approved" } },
    });
    renderApp("/reports/5");
    expect(await screen.findByLabelText("Headline", {}, { timeout: 4000 })).toHaveTextContent("regressed: add");
    const table = screen.getByRole("table", { name: "Families" });
    expect(within(table).getByRole("img", { name: "add: −8.0 pts, CI [−12.0, −4.0]" })).toBeInTheDocument();
    expect(within(table).getByText("improved")).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "digits: success by difficulty" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Export HTML" })).toHaveAttribute("href", "/api/v1/reports/5/export/");
    expect(screen.getByLabelText("Review state")).toHaveTextContent("In review");
    // ada is not the author (grace is), so she may review although authors may not.
    expect(within(screen.getByRole("list", { name: "Comments" })).getByText("looking")).toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({ decision: "approve", note: "" }),
    );
  });
});
