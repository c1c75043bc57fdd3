import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderWithProviders } from "@/testing/render";

import type { Run } from "../api/types";
import { RUN } from "../testing/fixtures";
import { LostWorkerNotice } from "./run-summary";

const NOW = new Date("2026-01-01T10:10:00Z");

function silentFor(seconds: number, extra: Partial<Run> = {}): Run {
  return { ...RUN, heartbeat_at: new Date(NOW.getTime() - seconds * 1000).toISOString(), ...extra };
}

describe("LostWorkerNotice", () => {
  it("warns once a running run's heartbeat is older than the reaper's threshold", () => {
    renderWithProviders(<LostWorkerNotice run={silentFor(75)} now={NOW} />);
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent("No heartbeat from celery@gpu-1 for 1 min 15 s");
    expect(alert).toHaveTextContent("a run silent for 1 min is taken for lost");
    expect(alert).toHaveTextContent("resumes from its last checkpoint");
  });

  it("says nothing while the heartbeat is fresh by the run's own threshold", () => {
    renderWithProviders(<LostWorkerNotice run={silentFor(75, { heartbeat_stale_after_s: 120 })} now={NOW} />);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("counts from the start of a running run that never beat", () => {
    const started = new Date(NOW.getTime() - 90_000).toISOString();
    renderWithProviders(<LostWorkerNotice run={silentFor(0, { heartbeat_at: null, started_at: started })} now={NOW} />);
    expect(screen.getByRole("alert")).toHaveTextContent("for 1 min 30 s");
  });

  it("says nothing for a run that is not running", () => {
    renderWithProviders(<LostWorkerNotice run={silentFor(600, { state: "queued" })} now={NOW} />);
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
