// The deployment's canaries, newest first, each with how it ended (or where it stands).
import { Link } from "react-router";

import { EmptyState } from "@/components/ui/empty-state";
import { formatDateTime } from "@/lib/format";

import type { Canary } from "../api/types";
import { CanaryStateBadge } from "./badges";

export function CanaryList({ canaries }: { canaries: Canary[] }) {
  if (!canaries.length) {
    return <EmptyState title="No canaries yet">A canary sends a share of the traffic to a candidate version.</EmptyState>;
  }
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Canaries">
        <thead>
          <tr>
            <th>Canary</th>
            <th>Candidate</th>
            <th>Mode</th>
            <th>State</th>
            <th>Started</th>
            <th>Finished</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {canaries.map((c) => (
            <tr key={c.id}>
              <td>
                <Link to={`/canaries/${c.id}`}>Canary {c.id}</Link>
              </td>
              <td>
                {c.candidate?.label ?? "—"}
                <span className="subtle"> vs {c.production?.label ?? "—"}</span>
              </td>
              <td>{c.mode}</td>
              <td>
                <CanaryStateBadge state={c.state} />
              </td>
              <td>{formatDateTime(c.created_at)}</td>
              <td>{formatDateTime(c.finished_at)}</td>
              <td className="dp-reason dp-wrap">{c.reason || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
