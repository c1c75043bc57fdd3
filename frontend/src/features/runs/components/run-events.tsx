// The run's control events, oldest first: who paused, resumed or changed the curriculum, when,
// and the step each took effect at (a change still waiting for the worker says so).
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { formatDateTime } from "@/lib/format";

import { useRunEvents } from "../api/get-run-events";
import type { Run } from "../api/types";
import { markerLabel } from "../lib/run-markers";

/** Who made an event no person made: a budget stop is the run's; a health breach, a lost worker
 * and its resumption are the platform's watch. */
function byThePlatform(kind: string): string {
  return kind === "budget" ? "the run (its budget)" : "the platform";
}

export function RunEvents({ run }: { run: Run }) {
  const events = useRunEvents(run.id);
  return (
    <Card title="Control events" description="Pauses, resumes, budget stops and curriculum changes: the markers on the charts.">
      <QueryPlaceholder query={events} />
      {events.data && events.data.length === 0 && <div className="card-body subtle">Nothing yet: the run trains as launched.</div>}
      {events.data && events.data.length > 0 && (
        <table className="table" aria-label="Control events">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th>Asked at step</th>
              <th>Took effect after step</th>
            </tr>
          </thead>
          <tbody>
            {events.data.map((e) => (
              <tr key={e.id} data-event-kind={e.kind}>
                <td>{formatDateTime(e.created_at)}</td>
                <td>{e.created_by ?? <span className="subtle">{byThePlatform(e.kind)}</span>}</td>
                <td>
                  {markerLabel(e)}
                  {e.reason && <div className="subtle">{e.reason}</div>}
                </td>
                <td>{e.requested_at_step}</td>
                <td>{e.applied_at_step ?? <span className="subtle">waiting for the next step</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
