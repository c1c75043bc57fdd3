import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { FakeUPlot } from "@/testing/fake-uplot";
import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { RunEvent } from "../api/get-run-events";
import { FakeSocket } from "../testing/fake-socket";
import { METRICS, RUN } from "../testing/fixtures";

vi.mock("uplot", () => import("@/testing/fake-uplot"));

const CHANGE: RunEvent = {
  id: 4,
  kind: "curriculum",
  change: { families: { digits: { distribution: [0, 0, 1] } } },
  reason: "",
  summary: "digits levels 0/0/100%",
  created_by: "ada",
  created_at: "2026-01-01T10:01:00Z",
  requested_at_step: 1,
  applied_at_step: 2,
  applied_at: "2026-01-01T10:01:02Z",
};

const CURRICULUM = {
  band: [0.3, 0.7],
  floor: 0.05,
  dynamic: true,
  families: [{ name: "digits", levels: [2, 3, 4], weight: 1, distribution: [0.9, 0.05, 0.05] }],
};

const USAGE = {
  run: 7,
  currency: "EUR",
  totals: { worker_seconds: 540, generated_tokens: 120_000, judge_tokens: 0, cost: 0.3 },
  by_family: [{ key: "digits", worker_seconds: 540, generated_tokens: 120_000, judge_tokens: 0, cost: 0.3 }],
  by_queue: [{ key: "gpu", worker_seconds: 540, generated_tokens: 120_000, judge_tokens: 0, cost: 0.3 }],
  budget: { max_worker_hours: 1, max_cost: null, problem: null },
};

function runApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/runs/7/": { body: RUN },
    "GET /api/v1/runs/7/metrics/": { body: METRICS },
    "GET /api/v1/runs/7/events/": { body: [CHANGE] },
    "GET /api/v1/runs/7/curriculum/": { body: CURRICULUM },
    "GET /api/v1/runs/7/usage/": { body: USAGE },
    ...extra,
  });
}

describe("Run page: live control", () => {
  beforeEach(() => {
    FakeUPlot.reset();
    FakeSocket.all = [];
    vi.stubGlobal("WebSocket", FakeSocket);
  });

  it("marks the run's events on every chart", async () => {
    runApi();
    renderApp("/runs/7");
    const figure = (await screen.findByRole("img", { name: "Reward and its parts" }, { timeout: 5000 })).closest("figure")!;
    await waitFor(() => expect(figure).toHaveAttribute("data-markers", "1"));
    expect(within(figure).getByRole("list", { name: "Events on this chart" })).toHaveTextContent("Step 2: Curriculum: digits levels 0/0/100%");
    await waitFor(() => expect(FakeUPlot.live()[0]?.options.hooks?.draw).toHaveLength(1));
  });

  it("pauses a running run and says it stops at the end of its step", async () => {
    const { requests } = runApi({
      "POST /api/v1/runs/7/pause/": { body: { ...RUN, pause_requested: true, pause_reason: "Paused by ada." } },
    });
    renderApp("/runs/7");
    await userEvent.click(await screen.findByRole("button", { name: "Pause run" }, { timeout: 5000 }));
    expect(await screen.findByText(/the run stops at the end of its current step and saves a checkpoint/)).toBeInTheDocument();
    expect(requests.some((r) => r.method === "POST" && r.path === "/api/v1/runs/7/pause/")).toBe(true);
    expect(screen.getByRole("region", { name: "Run status" })).toHaveTextContent("Pausing");
  });

  it("resumes a paused run with a raised budget", async () => {
    const paused = { ...RUN, state: "paused" as const, pause_reason: "The run used 1.1 worker-hours, its budget is 1.", budget: { max_worker_hours: 1, max_cost: null } };
    const { requests } = runApi({
      "GET /api/v1/runs/7/": { body: paused },
      "POST /api/v1/runs/7/resume/": { body: { ...paused, state: "queued", pause_reason: "" } },
    });
    renderApp("/runs/7");
    expect(await screen.findByText(/Paused at step 37\./, {}, { timeout: 5000 })).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Resume run" }));
    const dialog = screen.getByRole("alertdialog");
    const hours = within(dialog).getByLabelText("Worker-hours");
    await userEvent.clear(hours);
    await userEvent.type(hours, "3");
    await userEvent.click(within(dialog).getByRole("button", { name: "Resume run" }));
    await waitFor(() => expect(requests.find((r) => r.path === "/api/v1/runs/7/resume/")?.body).toEqual({ budget: { max_worker_hours: 3, max_cost: null } }));
  });

  it("resumes a failed run from its checkpoint and shows why one without cannot be", async () => {
    const failed = { ...RUN, state: "failed" as const, failure_reason: "OperationalError: the connection was dropped" };
    let calls = 0;
    const { requests } = runApi({
      "GET /api/v1/runs/7/": { body: failed },
      "POST /api/v1/runs/7/resume/": () => {
        calls += 1;
        return calls === 1
          ? { status: 400, body: { errors: [{ field: "state", code: "finished", message: "the run failed before its first checkpoint: launch it again instead" }] } }
          : { body: { ...failed, state: "queued", failure_reason: "" } };
      },
    });
    renderApp("/runs/7");
    await userEvent.click(await screen.findByRole("button", { name: "Resume run" }, { timeout: 5000 }));
    const dialog = screen.getByRole("alertdialog");
    expect(dialog).toHaveTextContent("a worker continues it from its last checkpoint");
    await userEvent.click(within(dialog).getByRole("button", { name: "Resume run" }));
    expect(await within(dialog).findByText(/failed before its first checkpoint/)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Resume run" }));
    await waitFor(() => expect(requests.filter((r) => r.path === "/api/v1/runs/7/resume/")).toHaveLength(2));
  });

  it("sends only the edited part of the curriculum and shows the field a refusal names", async () => {
    let calls = 0;
    const { requests } = runApi({
      "POST /api/v1/runs/7/curriculum/": () => {
        calls += 1;
        return calls === 1
          ? { status: 400, body: { errors: [{ field: "band", code: "invalid", message: "must be [low, high] with 0 <= low < high <= 1" }] } }
          : { status: 201, body: { ...CHANGE, id: 5, applied_at_step: null, applied_at: null } };
      },
    });
    renderApp("/runs/7/control");
    const band = await screen.findByRole("group", { name: "Target band" }, { timeout: 5000 });
    const low = within(band).getByLabelText("Low");
    await userEvent.clear(low);
    await userEvent.type(low, "0.9");
    await userEvent.click(screen.getByRole("button", { name: "Apply at the next step" }));
    expect(await screen.findByText("must be [low, high] with 0 <= low < high <= 1")).toBeInTheDocument();

    await userEvent.clear(low);
    await userEvent.type(low, "0.3");
    const level4 = screen.getByLabelText("digits level 4 %");
    await userEvent.clear(level4);
    await userEvent.type(level4, "80");
    await userEvent.click(screen.getByRole("button", { name: "Apply at the next step" }));
    await waitFor(() => expect(calls).toBe(2));
    expect(requests.filter((r) => r.method === "POST" && r.path === "/api/v1/runs/7/curriculum/")[1]?.body).toEqual({ families: { digits: { distribution: [90, 5, 80] } } });
    expect(screen.getByRole("table", { name: "Control events" })).toHaveTextContent("Curriculum: digits levels 0/0/100%");
    expect(screen.getByTestId("run-usage")).toHaveTextContent("0.15 h");
    expect(screen.getByRole("table", { name: "Usage by family" })).toHaveTextContent("0.30 EUR");
  });
});
