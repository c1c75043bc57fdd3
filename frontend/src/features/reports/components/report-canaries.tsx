// The canary releases of the report's candidate checkpoint: their reports sit beside this one.
import { Link } from "react-router";

import { formatDateTime } from "@/lib/format";

import type { Report } from "../api/reports";

export function ReportCanaries({ report }: { report: Report }) {
  const canaries = report.canaries ?? [];
  if (canaries.length === 0) {
    return <p className="subtle">No canary of this checkpoint yet: deploy it, then send it to a canary from its deployment.</p>;
  }
  return (
    <ul className="stack" aria-label="Canary releases">
      {canaries.map((canary) => (
        <li key={canary.id}>
          <Link to={`/canaries/${canary.id}`}>Canary {canary.id}</Link> of {canary.candidate} on{" "}
          <code>{canary.deployment}</code>: <strong>{canary.state.replace(/_/g, " ")}</strong>{" "}
          <span className="subtle">{formatDateTime(canary.created_at)}</span>
          {canary.reason && <div className="subtle">{canary.reason}</div>}
        </li>
      ))}
    </ul>
  );
}
