// The canary's report: each step's outcome, why, and who decided (the analysis, or a person),
// beside links to the evaluation reports that promoted either version.
import { Link } from "react-router";

import { Card } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";

import { useCanaryReport } from "../api/canaries";
import type { Canary, StepRecord } from "../api/types";
import { formatShare, stateWords } from "../lib/format";

function HistoryEntry({ entry }: { entry: StepRecord }) {
  return (
    <li>
      <div className="dp-row">
        <strong>{formatShare(entry.share)}</strong>
        <span className="badge badge-muted">{stateWords(entry.outcome)}</span>
        <span className="subtle">decided by {entry.decided_by ?? "analysis"}</span>
        <span className="subtle">{formatDateTime(entry.at)}</span>
      </div>
      {entry.reason && <div className="dp-reason">{entry.reason}</div>}
    </li>
  );
}

export function CanaryReport({ canary }: { canary: Canary }) {
  const report = useCanaryReport(canary.id, canary.revision);
  const data = report.data;
  const history = data?.history ?? canary.history;
  const production = data?.production?.evaluation_report ?? null;
  const candidate = data?.candidate?.evaluation_report ?? null;
  return (
    <Card title="Canary report" description="Each step's outcome and who decided it.">
      <div className="card-body stack">
        {report.error && <ErrorMessage error={report.error} />}
        {data?.outcome && <p>{data.outcome}</p>}
        {history.length ? (
          <ol className="dp-history" aria-label="Canary history">
            {history.map((entry, i) => (
              <HistoryEntry key={`${entry.step}-${entry.at}-${i}`} entry={entry} />
            ))}
          </ol>
        ) : (
          <p className="subtle">No step has ended yet.</p>
        )}
        {(production !== null || candidate !== null) && (
          <div className="row">
            {production !== null && <Link to={`/reports/${production}`}>Production's evaluation report</Link>}
            {candidate !== null && <Link to={`/reports/${candidate}`}>Candidate's evaluation report</Link>}
          </div>
        )}
      </div>
    </Card>
  );
}
