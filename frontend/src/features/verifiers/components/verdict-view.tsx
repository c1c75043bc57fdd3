import { REWARD_PARTS, TURN_PARTS, type Verdict } from "../types";
import { ErrorTypeChip, ScoreBar, StageChip, StatusIcon, milliseconds } from "./visuals";

function infoText(info: Record<string, unknown>): string {
  if (typeof info.tests_total === "number") return `${String(info.tests_passed ?? 0)}/${info.tests_total} tests`;
  const entries = Object.entries(info).filter(([, v]) => v !== null && typeof v !== "object");
  return entries.map(([k, v]) => `${k}: ${String(v)}`).join(" · ");
}

export function VerdictView({ verdict }: { verdict: Verdict }) {
  return (
    <section className="card" aria-label="Verdict">
      <div className="vf-verdict-summary">
        <div className="row">
          <StatusIcon passed={verdict.passed} />
          <strong style={{ fontSize: "var(--text-lg)" }}>{verdict.passed ? "Passed" : "Failed"}</strong>
          {!verdict.passed && <ErrorTypeChip type={verdict.error_type} />}
        </div>
        <div>
          <div className="vf-stat-label">Reward</div>
          <div className="mono" style={{ fontSize: 20, fontWeight: 600 }} data-testid="verdict-reward">
            {verdict.reward.toFixed(3)}
          </div>
        </div>
        {[...REWARD_PARTS, ...TURN_PARTS].filter((part) => verdict.parts[part] !== undefined).map((part) => (
          <div key={part}>
            <div className="vf-stat-label">{part}</div>
            <ScoreBar value={verdict.parts[part] ?? 0} label={`${part} part`} />
          </div>
        ))}
        <div style={{ marginLeft: "auto" }} className="subtle">
          {milliseconds(verdict.seconds)} · <span className="mono">{verdict.spec_hash.slice(0, 8)}</span>
        </div>
      </div>
      <div className="table-wrap">
        <table className="table" aria-label="Layer verdicts">
          <thead>
            <tr>
              <th>
                <span className="visually-hidden">Result</span>
              </th>
              <th>Layer</th>
              <th>Stage</th>
              <th>Score</th>
              <th>Error type</th>
              <th>Detail</th>
              <th className="vf-num">Time</th>
            </tr>
          </thead>
          <tbody>
            {verdict.layers.map((layer, i) => (
              <tr key={`${layer.name}-${i}`} data-testid="verdict-row" className={layer.skipped ? "is-inactive" : undefined}>
                <td>
                  <StatusIcon passed={layer.passed} skipped={layer.skipped} />
                </td>
                <td>
                  <strong>{layer.name}</strong> <span className="mono subtle">{layer.kind}</span>
                  {layer.biased && (
                    <span className="badge badge-warning" style={{ marginLeft: 6 }}>
                      biased
                    </span>
                  )}
                </td>
                <td>
                  <StageChip stage={layer.stage} />
                </td>
                <td>{layer.skipped && !layer.passed ? <span className="subtle">skipped</span> : <ScoreBar value={layer.score} />}</td>
                <td>
                  <ErrorTypeChip type={layer.error_type} />
                </td>
                <td className="vf-detail">
                  {layer.detail}
                  {infoText(layer.info) && <div className="subtle">{infoText(layer.info)}</div>}
                </td>
                <td className="vf-num mono">{milliseconds(layer.seconds)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details className="card-body" style={{ borderTop: "1px solid var(--color-border)" }}>
        <summary className="subtle">Extracted text</summary>
        <pre className="vf-pre" style={{ marginTop: 8 }}>
          {verdict.extracted ?? "(nothing extracted)"}
        </pre>
      </details>
    </section>
  );
}
