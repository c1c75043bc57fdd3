// A run's events as chart markers: each at the step after which it took effect.
import type { ChartMarker } from "@/components/charts/markers";

import type { RunEvent } from "../api/get-run-events";

const LABELS: Record<string, string> = { pause: "Paused", resume: "Resumed", budget: "Paused: over budget" };

export function markerLabel(event: Pick<RunEvent, "kind" | "summary">): string {
  return event.kind === "curriculum" ? `Curriculum: ${event.summary}` : (LABELS[event.kind] ?? event.summary);
}

/** Applied events only: a change still waiting for the worker has no step yet. */
export function eventMarkers(events: readonly RunEvent[] | undefined): ChartMarker[] {
  return (events ?? [])
    .filter((e) => e.applied_at_step !== null && e.applied_at_step !== undefined)
    .map((e) => ({ x: e.applied_at_step as number, kind: e.kind, label: markerLabel(e) }));
}
