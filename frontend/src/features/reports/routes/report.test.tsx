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
    signals: {
      run: 3,
      run_step: 40,
      step: 40,
      signals: [
        { name: "kl_spike", label: "KL spike", state: "ok", sentence: "KL 0.01 nats", since_step: null, value: 0.01, threshold: 6, pause_on_breach: false },
        { name: "length_blowup", label: "Completion length blow-up", state: "breached", sentence: "completions grew 3.4x", since_step: 30, value: 3.4, threshold: 3, pause_on_breach: false },
      ],
    },
  },
  comments: [
    { id: 1, parent: null, family: "add", chart: "", author: "grace", body: "add dropped", created_at: "2026-01-01T00:00:00Z" },
    { id: 2, parent: 1, family: "add", chart: "", author: "ada", body: "looking", created_at: "2026-01-01T00:01:00Z" },
    { id: 3, parent: null, family: "", chart: "worst_tasks", author: "ada", body: "one task", created_at: "2026-01-01T00:02:00Z" },
  ],
  reviews: [],
  required_approvals: 1,
  authors_may_approve: false,
  approver_roles: ["editor", "admin"],
  regressed_families: ["add"],
  candidate_checkpoint: 11,
  promotion: null,
  canaries: [
    {
      id: 3, deployment: "sorter", state: "rolled_back", candidate: "sorter v2",
      reason: "rolled back: pass rate failed", created_at: "2026-01-02T00:00:00Z",
    },
  ],
  charts: [
    { key: "success_by_level", title: "Success by difficulty" },
    { key: "worst_tasks", title: "Long tail" },
    { key: "signals", title: "Reward-hacking and drift signals" },
  ],
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
    const canaries = screen.getByRole("list", { name: "Canary releases" });
    expect(within(canaries).getByRole("link", { name: "Canary 3" })).toHaveAttribute("href", "/canaries/3");
    expect(canaries).toHaveTextContent("rolled back: pass rate failed");
    expect(screen.getByLabelText("Review state")).toHaveTextContent("In review");
    // ada is not the author (grace is), so she may review although authors may not.
    expect(within(screen.getByRole("list", { name: "Comments" })).getByText("looking")).toBeInTheDocument();
    // add regressed: approving waits for a written override reason.
    const approve = screen.getByRole("button", { name: "Approve over the regression" });
    expect(approve).toBeDisabled();
    fireEvent.change(screen.getByLabelText("Override reason"), { target: { value: "add trades 8 pts for the new format" } });
    fireEvent.click(approve);
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({
        decision: "approve", note: "", override_reason: "add trades 8 pts for the new format",
      }),
    );
  });

  it("shows an approval's override reason, and lets a viewer comment but not review", async () => {
    const review = { id: 9, reviewer: "ada", decision: "approve", note: "", override_reason: "add <b>is</b> deprecated", created_at: "2026-01-02T00:00:00Z" };
    mockApi({
      "GET /api/v1/auth/me/": { body: { ...ME, teams: [{ id: 1, slug: "core", name: "Core", role: "viewer" }] } },
      "GET /api/v1/reports/5/": { body: { ...REPORT, reviews: [review] } },
    });
    renderApp("/reports/5");
    const reason = await screen.findByLabelText("Regression override", {}, { timeout: 4000 });
    expect(reason).toHaveTextContent("Overrode the regression of add: add <b>is</b> deprecated");
    expect(screen.getByText("The team's review policy lets editor and admin review; you may comment.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Approve/ })).toBeNull();
    expect(screen.getByRole("button", { name: "Post comment" })).toBeInTheDocument();
  });

  it("shows the run's frozen signals, breached first, and comments on a plot", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/reports/5/": { body: REPORT },
      "POST /api/v1/reports/5/comments/": { status: 201, body: REPORT.comments[2] },
    });
    renderApp("/reports/5");
    const signals = await screen.findByRole("region", { name: "Training signals" });
    expect(signals).toHaveTextContent("checked at step 40, frozen with this report");
    const rows = within(signals).getAllByRole("listitem");
    expect(rows[0]).toHaveTextContent("Completion length blow-up");
    expect(within(screen.getByRole("list", { name: "Comments" })).getByText("plot: Long tail")).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText("About"), { target: { value: "chart:signals" } });
    fireEvent.change(screen.getByLabelText("Comment"), { target: { value: "length?" } });
    fireEvent.click(screen.getByRole("button", { name: "Post comment" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({ body: "length?", family: "", chart: "signals", parent: null }),
    );
  });

  it("promotes the candidate checkpoint once the report is approved, and says why not before", async () => {
    const promoted = { id: 1, team: "core", checkpoint: 11, run: 3, step: 40, subject: "sort run 1, step 40", report: 5, report_version: 2, note: "", promoted_by: "ada", created_at: "2026-01-02T00:00:00Z" };
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/reports/5/": { body: { ...REPORT, state: "approved" } },
      "POST /api/v1/promotions/": { status: 201, body: promoted },
    });
    renderApp("/reports/5");
    fireEvent.click(await screen.findByRole("button", { name: "Promote checkpoint" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({ checkpoint: 11, report: 5, note: "" }),
    );
  });

  it("shows a promotion and asks for approval before one", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/reports/5/": { body: REPORT },
    });
    renderApp("/reports/5");
    expect(await screen.findByText("Promoting sort run 1, step 40 needs this report approved.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Promote checkpoint" })).toBeNull();
  });
});
