// The deployment's active canary in brief: its state, share, versions and reason.
import { Link } from "react-router";

import type { Canary } from "../api/types";
import { formatShare, stateWords } from "../lib/format";
import { CanaryStateBadge } from "./badges";

export function ActiveCanary({ canary }: { canary: Canary }) {
  return (
    <div className="stack" role="group" aria-label="Active canary">
      <div className="dp-status-line">
        <CanaryStateBadge state={canary.state} />
        <span>
          {canary.mode === "shadow" ? "Shadow copy of" : "Candidate answers"}{" "}
          <strong>{formatShare(canary.share)}</strong>{" "}
          {canary.mode === "shadow" ? "the traffic" : "of the traffic"}
        </span>
        <span className="subtle">
          {canary.candidate?.label ?? "candidate"} against {canary.production?.label ?? "production"} · step {canary.step + 1} of{" "}
          {Array.isArray(canary.steps) ? canary.steps.length : "?"}
        </span>
      </div>
      {canary.reason && <p className="dp-reason">{canary.reason}</p>}
      <div>
        <Link className="btn btn-primary" to={`/canaries/${canary.id}`}>
          Open canary
        </Link>
        <span className="visually-hidden"> ({stateWords(canary.state)})</span>
      </div>
    </div>
  );
}
