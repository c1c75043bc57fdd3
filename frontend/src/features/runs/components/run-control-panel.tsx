// The run page's Control tab (steer the curriculum, the events, usage and budget), and the
// provider that puts the run's events on every chart as markers.
import { useMemo, type ReactNode } from "react";

import { ChartMarkersContext } from "@/components/charts/markers";

import { useRunEvents } from "../api/get-run-events";
import type { Run } from "../api/types";
import { eventMarkers } from "../lib/run-markers";
import { CurriculumControl } from "./curriculum-control";
import { RunEvents } from "./run-events";
import { RunUsage } from "./run-usage";
import "../control.css";

export function RunControlPanel({ run }: { run: Run }) {
  return (
    <div className="stack">
      <CurriculumControl run={run} />
      <RunEvents run={run} />
      <RunUsage run={run} />
    </div>
  );
}

/** The run's applied events as markers on every chart inside. */
export function RunMarkers({ runId, active, children }: { runId: number; active: boolean; children: ReactNode }) {
  const events = useRunEvents(runId, active);
  const markers = useMemo(() => eventMarkers(events.data), [events.data]);
  return <ChartMarkersContext.Provider value={markers}>{children}</ChartMarkersContext.Provider>;
}
