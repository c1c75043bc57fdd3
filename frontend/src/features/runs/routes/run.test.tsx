import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { FakeUPlot } from "@/testing/fake-uplot";
import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { CHECKPOINT, FAILED_RUN, METRICS, RUN } from "../testing/fixtures";
import { FakeSocket } from "../testing/fake-socket";

vi.mock("uplot", () => import("@/testing/fake-uplot"));

function runApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/runs/7/": { body: RUN },
    "GET /api/v1/runs/7/metrics/": { body: METRICS },
    ...extra,
  });
}

function chart(title: string) {
  return screen.getByRole("img", { name: title }).closest("figure")!;
}

function plotOf(title: string) {
  const figure = chart(title);
  return FakeUPlot.live().find((p) => figure.contains(p.over))!;
}

describe("Run page", () => {
  beforeEach(() => {
    FakeUPlot.reset();
    FakeSocket.all = [];
    vi.stubGlobal("WebSocket", FakeSocket);
  });

  it("shows the run's state, progress, worker, heartbeat and resume", async () => {
    runApi();
    renderApp("/runs/7");
    const status = await screen.findByRole("region", { name: "Run status" }, { timeout: 5000 });
    expect(within(status).getByText("Running")).toBeInTheDocument();
    expect(within(status).getByRole("progressbar", { name: "Training progress" })).toHaveAttribute("aria-valuenow", "37");
    expect(within(status).getByText("37 / 100")).toBeInTheDocument();
    expect(within(status).getByText("celery@gpu-1")).toBeInTheDocument();
    expect(within(status).getByText(/^\d+ s ago$/)).toBeInTheDocument();
    expect(within(status).getByText(/resumed from step 30/)).toBeInTheDocument();
    expect(within(status).getByRole("link", { name: "Digit sort" })).toHaveAttribute("href", "/experiments/3");
  });

  it("groups the run's metrics into panels and draws them", async () => {
    runApi();
    renderApp("/runs/7");
    await screen.findByRole("img", { name: "Reward and its parts" }, { timeout: 5000 });
    expect(screen.getByRole("img", { name: "KL to the reference" })).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "Success by difficulty: digits" })).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "Time split per step" })).toBeInTheDocument();
    await waitFor(() => expect(plotOf("Reward and its parts")).toBeDefined());
    const plot = plotOf("Reward and its parts");
    expect(plot.data.slice(0, 3)).toEqual([
      [0, 1, 2],
      [0.1, 0.3, 0.5],
      [0.2, 0.4, null],
    ]);
    // Smoothed by default (the trend over each faint raw line); a reported gap stays a gap.
    expect(plot.options.series.map((s) => s.label)).toEqual([
      "Step",
      "reward/mean",
      "reward/outcome",
      "reward/mean (smoothed)",
      "reward/outcome (smoothed)",
    ]);
    expect(plot.data[4]?.[2]).toBeNull();
    fireEvent.change(screen.getByLabelText("Smoothing"), { target: { value: "0" } });
    await waitFor(() => expect(plotOf("Reward and its parts").options.series).toHaveLength(3));
    expect(chart("Reward and its parts")).toHaveTextContent(/outcome, process, constraint/);
  });

  it("streams live points into the charts after the history's sequence number", async () => {
    runApi();
    renderApp("/runs/7");
    await screen.findByRole("img", { name: "KL to the reference" }, { timeout: 5000 });
    await waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    const socket = FakeSocket.last()!;
    expect(socket.url).toMatch(/\/ws\/runs\/7\/\?since=40$/);
    act(() => socket.open());
    expect(await screen.findByText("Live")).toBeInTheDocument();
    act(() => socket.deliver({ type: "points", prev: 40, seq: 44, points: { kl: { step: [3, 4], value: [0.04, 0.05] } } }));
    await waitFor(() => expect(chart("KL to the reference")).toHaveAttribute("data-points", "5"));
    expect(plotOf("KL to the reference").data[1]).toEqual([0.01, 0.02, 0.03, 0.04, 0.05]);
    expect(FakeUPlot.instances.filter((p) => p.options.series[1]?.label === "kl")).toHaveLength(1);
    expect(within(chart("KL to the reference")).getByText("kl").closest("li")).toHaveTextContent("0.05");
  });

  it("polls the metrics endpoint from its cursor when no websocket server answers", async () => {
    const { requests } = runApi();
    renderApp("/runs/7");
    await screen.findByRole("img", { name: "KL to the reference" }, { timeout: 5000 });
    await waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    act(() => FakeSocket.last()!.drop());
    await waitFor(() => expect(requests.filter((r) => r.path === "/api/v1/runs/7/metrics/").length).toBeGreaterThan(1), { timeout: 5000 });
    const poll = requests.filter((r) => r.path === "/api/v1/runs/7/metrics/")[1]!;
    expect(poll.search).toContain("since=40");
  });

  it("cancels after confirmation", async () => {
    const { requests } = runApi({ "POST /api/v1/runs/7/cancel/": { body: { ...RUN, cancel_requested: true } } });
    renderApp("/runs/7");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Cancel run" }, { timeout: 5000 }));
    const dialog = screen.getByRole("alertdialog", { name: "Cancel run #2?" });
    expect(dialog).toHaveTextContent("stops at the end of the current training step");
    await user.click(within(dialog).getByRole("button", { name: "Cancel run" }));
    expect(await screen.findByText(/Cancel requested/)).toBeInTheDocument();
    expect(requests.some((r) => r.method === "POST" && r.path === "/api/v1/runs/7/cancel/")).toBe(true);
    expect(screen.getByText("Cancelling")).toBeInTheDocument();
  });

  it("says why a failed run failed, with its last log lines", async () => {
    runApi({ "GET /api/v1/runs/7/": { body: FAILED_RUN } });
    renderApp("/runs/7");
    const alert = await screen.findByRole("alert", {}, { timeout: 5000 });
    expect(alert).toHaveTextContent("The run failed at step 37.");
    expect(alert).toHaveTextContent("CUDA out of memory while generating step 38");
    expect(alert).toHaveTextContent("torch.OutOfMemoryError");
    expect(screen.queryByRole("button", { name: "Cancel run" })).not.toBeInTheDocument();
  });

  it("lists checkpoints and logs in their tabs", async () => {
    const promotion = { id: 2, team: "core", checkpoint: 9, run: 7, step: 60, subject: "sort run 1, step 60", report: 5, report_version: 2, note: "", promoted_by: "ada", created_at: "2026-01-02T00:00:00Z" };
    const promoted = { ...CHECKPOINT, id: 9, step: 60, name: "step-000060", promotion, adapter: true };
    runApi({ "GET /api/v1/runs/7/checkpoints/": { body: [CHECKPOINT, promoted] } });
    renderApp("/runs/7/checkpoints");
    const row = (await screen.findByText("step-000030", {}, { timeout: 5000 })).closest("tr")!;
    expect(row).toHaveTextContent("0.45");
    expect(row).toHaveTextContent("3.3 MB");
    expect(row).not.toHaveTextContent("Promoted");
    const link = within(screen.getByText("step-000060").closest("tr")!).getByRole("link", { name: /Promoted on report v2/ });
    expect(link).toHaveAttribute("href", "/reports/5");
    expect(within(row).getByRole("link", { name: "Hugging Face model" })).toHaveAttribute("href", "/api/v1/checkpoints/1/export/");
    expect(within(row).queryByRole("link", { name: "Adapter" })).toBeNull();
    const lora = within(screen.getByText("step-000060").closest("tr")!);
    expect(lora.getByRole("link", { name: "Merged model" })).toHaveAttribute("href", "/api/v1/checkpoints/9/export/");
    expect(lora.getByRole("link", { name: "Adapter" })).toHaveAttribute("href", "/api/v1/checkpoints/9/export/?adapter_only=true");
    const user = userEvent.setup();
    await user.click(screen.getByRole("link", { name: "Logs" }));
    expect(await screen.findByLabelText("Run log")).toHaveTextContent("step 37/100 reward/mean=0.55");
  });

  it("says when a run is not there, with a way back to the runs", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME } });
    renderApp("/runs/404");
    expect(await screen.findByText("No such run", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "All runs" })).toHaveAttribute("href", "/runs");
  });
});
