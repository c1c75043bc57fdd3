// The processes that answer for a deployment: production's and (during a canary) the
// candidate's, with the state their worker reports.
import { formatRelative } from "@/lib/format";

import type { Replica } from "../api/types";

function stateTone(state: string, stale: boolean): string {
  if (stale) return "badge-warning";
  if (state === "ready") return "badge-success";
  if (state === "failed") return "badge-danger";
  if (state === "starting") return "badge-accent";
  return "badge-muted";
}

export function ReplicasTable({ replicas }: { replicas: Replica[] }) {
  if (!replicas.length) return <p className="subtle">No replica: the deployment is not serving.</p>;
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Replicas">
        <thead>
          <tr>
            <th>Role</th>
            <th>State</th>
            <th>Version</th>
            <th>Worker</th>
            <th>Heartbeat</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {replicas.map((r) => (
            <tr key={r.id}>
              <td>{r.role}</td>
              <td>
                <span className={`badge ${stateTone(r.state, r.stale)}`}>{r.state}</span>
                {r.stale && <span className="subtle"> (stale)</span>}
              </td>
              <td>{r.version?.label ?? "—"}</td>
              <td className="dp-mono">{r.worker || "—"}</td>
              <td>{formatRelative(r.heartbeat_at)}</td>
              <td className="dp-wrap">{r.message || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
