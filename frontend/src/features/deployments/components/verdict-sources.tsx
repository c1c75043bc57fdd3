// Where a canary step's verdicts came from: held-out tasks judged against their references
// (counted in the decision) and real traffic judged without references (shown only).
import type { VerdictSource } from "../api/types";
import { formatRate } from "../lib/format";

export function SourceBadge({ source }: { source: string }) {
  if (source === "pool") {
    return <span className="badge badge-success" title="Judged against a reference from the team's pool: counted in the decision">reference · counted</span>;
  }
  if (source === "ref_free" || source === "reference_free") {
    return (
      <span className="badge badge-muted" title="Real traffic judged without a reference (syntax, constraints, judge): shown, never counted">
        reference-free · shown only
      </span>
    );
  }
  if (source === "caller") {
    return <span className="badge badge-warning" title="Judged against what the caller sent: never counted">caller's · not counted</span>;
  }
  return null;
}

export function VerdictSources({ sources }: { sources: VerdictSource[] }) {
  if (!sources.length) return <p className="subtle">No analysis yet.</p>;
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Verdict sources">
        <thead>
          <tr>
            <th>Source</th>
            <th>Production</th>
            <th>Candidate</th>
            <th>In the decision</th>
          </tr>
        </thead>
        <tbody>
          {sources.map((s) => (
            <tr key={s.source} aria-label={s.source === "pool" ? "Held-out tasks" : "Real traffic"}>
              <td>
                <SourceBadge source={s.source} />
                <div className="subtle">{s.label}</div>
              </td>
              <td>
                {s.production.passed}/{s.production.judged} · {formatRate(s.production.pass_rate, 1)}
              </td>
              <td>
                {s.candidate.passed}/{s.candidate.judged} · {formatRate(s.candidate.pass_rate, 1)}
              </td>
              <td>
                <strong>{s.counted ? "counted" : "not counted"}</strong>
                <div className="subtle">{s.why}</div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
