import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useDecideProposal, useProposals, type Decision, type ExampleProposal } from "../api/example-proposals";
import type { Verifier } from "../api/get-verifiers";
import { LabelBadge } from "./label-badge";

const DECISIONS: [Decision, string][] = [
  ["accept", "Accept"],
  ["reject", "Reject"],
];

function Judged({ proposal }: { proposal: ExampleProposal }) {
  return (
    <span>
      {proposal.judged_passed ? "passed" : "failed"}
      {proposal.judged_error_type && <span className="mono subtle"> {proposal.judged_error_type}</span>}
      {proposal.version_number !== null && <span className="subtle"> by v{proposal.version_number}</span>}
    </span>
  );
}

function Source({ proposal }: { proposal: ExampleProposal }) {
  const text = proposal.source_label || proposal.source;
  return proposal.source_path ? <Link to={proposal.source_path}>{text}</Link> : <span>{text}</span>;
}

function ProposalRows({ proposals, verifierId, decided }: { proposals: ExampleProposal[]; verifierId: number; decided: boolean }) {
  const decide = useDecideProposal(verifierId);
  const now = new Date();
  return (
    <>
      <ErrorMessage error={decide.error} />
      <div className="table-wrap">
        <table className="table vf-proposals" aria-label={decided ? "Decided proposals" : "Proposed examples"}>
          <thead>
            <tr>
              <th>Response</th>
              <th>Expected</th>
              <th>Verdict → proposed</th>
              <th>Flagged</th>
              {decided ? <th>Decision</th> : <th><span className="visually-hidden">Actions</span></th>}
            </tr>
          </thead>
          <tbody>
            {proposals.map((p) => (
              <tr key={p.id} data-proposal={p.id}>
                <td>
                  <div className="vf-snippet mono" title={p.response}>
                    {p.response || <span className="subtle">(empty)</span>}
                  </div>
                </td>
                <td>
                  <div className="vf-snippet subtle" title={JSON.stringify(p.expected, null, 2)}>
                    {JSON.stringify(p.expected)}
                  </div>
                </td>
                <td>
                  <Judged proposal={p} /> → <LabelBadge prefix="known" label={p.label} />
                </td>
                <td className="vf-proposal-source">
                  <Source proposal={p} />
                  <div className="subtle" title={formatDateTime(p.created_at)}>
                    by {p.created_by ?? "—"}, {formatRelative(p.created_at, now)}
                    {p.note && <>: “{p.note}”</>}
                  </div>
                </td>
                {decided ? (
                  <td title={formatDateTime(p.decided_at)}>
                    {p.status} by {p.decided_by ?? "—"}
                  </td>
                ) : (
                  <td className="cell-actions">
                    <div className="row">
                      {DECISIONS.map(([decision, label]) => (
                        <button
                          key={decision}
                          type="button"
                          className={`btn btn-sm${decision === "accept" ? " btn-primary" : ""}`}
                          disabled={decide.isPending}
                          aria-label={`${label} proposal ${p.id}`}
                          onClick={() => decide.mutate({ id: p.id, decision })}
                        >
                          {label}
                        </button>
                      ))}
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * Verdicts reviewers flagged as wrong in runs, proposed as labelled examples. Accepting one
 * adds it to the examples below, so the next evaluation's false-positive and false-negative
 * rates count it; the team's editors decide.
 */
export function ProposalsPanel({ verifier }: { verifier: Verifier }) {
  const proposals = useProposals(verifier.id);
  const all = proposals.data?.results ?? [];
  const pending = all.filter((p) => p.status === "proposed");
  const decided = all.filter((p) => p.status !== "proposed");
  if (proposals.data && all.length === 0) return null;
  return (
    <Card
      title={`Proposed from runs (${pending.length})`}
      description="Completions whose verdict a reviewer flagged as wrong. Accept one to add it as a labelled example with the proposed label."
    >
      <QueryPlaceholder query={proposals} />
      {pending.length > 0 ? (
        <ProposalRows proposals={pending} verifierId={verifier.id} decided={false} />
      ) : (
        proposals.data && <p className="card-body subtle">Nothing waits for a decision.</p>
      )}
      {decided.length > 0 && (
        <details className="card-body">
          <summary>{decided.length} decided</summary>
          <ProposalRows proposals={decided} verifierId={verifier.id} decided />
        </details>
      )}
    </Card>
  );
}
