import { describe, expect, it } from "vitest";

import type { RunEvent } from "../api/get-run-events";
import { eventMarkers } from "./run-markers";

function event(kind: RunEvent["kind"], applied: number | null, summary = ""): RunEvent {
  return {
    id: 1,
    kind,
    change: {},
    reason: "",
    summary,
    created_by: "alice",
    created_at: "2026-01-01T00:00:00Z",
    requested_at_step: 3,
    applied_at_step: applied,
    applied_at: applied === null ? null : "2026-01-01T00:00:01Z",
  };
}

describe("eventMarkers", () => {
  it("marks applied events at their step and leaves waiting ones out", () => {
    const markers = eventMarkers([
      event("curriculum", 4, "digits levels 0/0/100%"),
      event("pause", 9, "Paused"),
      event("resume", 9, "Resumed"),
      event("budget", null, "Over budget"),
    ]);
    expect(markers).toEqual([
      { x: 4, kind: "curriculum", label: "Curriculum: digits levels 0/0/100%" },
      { x: 9, kind: "pause", label: "Paused" },
      { x: 9, kind: "resume", label: "Resumed" },
    ]);
  });

  it("marks a lost worker and the step the next attempt resumed from by their summaries", () => {
    const markers = eventMarkers([event("worker_lost", 46, "Worker lost, re-queued"), event("recovered", 40, "Resumed from step 40")]);
    expect(markers).toEqual([
      { x: 46, kind: "worker_lost", label: "Worker lost, re-queued" },
      { x: 40, kind: "recovered", label: "Resumed from step 40" },
    ]);
  });

  it("has none before the events load", () => {
    expect(eventMarkers(undefined)).toEqual([]);
  });
});
