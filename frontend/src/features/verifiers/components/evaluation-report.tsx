import type { Example } from "../api/get-examples";
import type { Evaluation } from "../types";
import { ErrorTypeChip, percent } from "./visuals";

export function Stat({ label, value, sub, tone }: { label: string; value: string; sub: string; tone?: "good" | "bad" }) {
  return (
    <div className={`vf-stat${tone ? ` is-${tone}` : ""}`} role="group" aria-label={label}>
      <div className="vf-stat-label">{label}</div>
      <div className="vf-stat-value">{value}</div>
      <div className="vf-stat-sub">{sub}</div>
    </div>
  );
}

export function ConfusionMatrix({ evaluation: e }: { evaluation: Evaluation }) {
  return (
    <table className="vf-confusion" aria-label="Confusion matrix">
      <thead>
        <tr>
          <th />
          <th scope="col">accepted</th>
          <th scope="col">rejected</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">good</th>
          <td className="is-right" aria-label="good accepted">{e.true_positives}</td>
          <td className={e.false_negatives ? "is-wrong" : undefined} aria-label="good rejected">
            {e.false_negatives}
          </td>
        </tr>
        <tr>
          <th scope="row">bad</th>
          <td className={e.false_positives ? "is-wrong" : undefined} aria-label="bad accepted">
            {e.false_positives}
          </td>
          <td className="is-right" aria-label="bad rejected">{e.true_negatives}</td>
        </tr>
      </tbody>
    </table>
  );
}

export function EvaluationReport({ evaluation: e, examples }: { evaluation: Evaluation; examples: Example[] }) {
  const byId = new Map(examples.map((ex) => [ex.id, ex]));
  const errorTypes = Object.entries(e.error_types).sort((a, b) => b[1] - a[1]);
  return (
    <section className="card" aria-label={`Evaluation of version ${e.version}`}>
      <div className="card-header">
        <div>
          <h2>Version {e.version} on {e.examples} labelled examples</h2>
          <div className="card-description">
            spec <span className="mono">{e.spec_hash.slice(0, 12)}</span> · {e.good} good, {e.bad} bad
          </div>
        </div>
      </div>
      <div className="card-body stack">
        <div className="vf-stats">
          <Stat
            label="False-positive rate"
            value={percent(e.false_positive_rate)}
            sub={`${e.false_positives} of ${e.bad} bad accepted`}
            tone={e.false_positives ? "bad" : "good"}
          />
          <Stat
            label="False-negative rate"
            value={percent(e.false_negative_rate)}
            sub={`${e.false_negatives} of ${e.good} good rejected`}
            tone={e.false_negatives ? "bad" : "good"}
          />
          <Stat label="Accuracy" value={percent(e.accuracy)} sub={`${e.examples - e.false_positives - e.false_negatives} of ${e.examples} right`} />
        </div>
        <div className="row" style={{ alignItems: "flex-start", gap: "var(--space-6)", flexWrap: "wrap" }}>
          <div className="stack" style={{ gap: "var(--space-2)" }}>
            <h3>Confusion matrix</h3>
            <ConfusionMatrix evaluation={e} />
          </div>
          <div className="stack" style={{ gap: "var(--space-2)" }}>
            <h3>Error types of rejected responses</h3>
            {errorTypes.length === 0 ? (
              <span className="subtle">None rejected.</span>
            ) : (
              <ul className="stack" style={{ gap: 4, margin: 0, padding: 0, listStyle: "none" }} aria-label="Error types">
                {errorTypes.map(([type, count]) => (
                  <li key={type} className="row">
                    <ErrorTypeChip type={type} />
                    <span className="mono">{count}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
        <div className="stack" style={{ gap: "var(--space-2)" }}>
          <h3>Misjudged ({e.misjudged.length})</h3>
          {e.misjudged.length === 0 ? (
            <span className="subtle">Every example was judged as labelled.</span>
          ) : (
            <div className="table-wrap">
              <table className="table" aria-label="Misjudged examples">
                <thead>
                  <tr>
                    <th>Example</th>
                    <th>Label</th>
                    <th>Verdict</th>
                    <th>Layer</th>
                    <th>Error type</th>
                    <th>Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {e.misjudged.map((m) => {
                    const example = byId.get(m.example_id);
                    return (
                      <tr key={m.example_id}>
                        <td>
                          <div className="mono">#{m.example_id}</div>
                          {example && <div className="vf-snippet subtle">{example.note || example.response}</div>}
                        </td>
                        <td>
                          <span className={`badge ${m.label === "good" ? "badge-success" : "badge-danger"}`}>{m.label}</span>
                        </td>
                        <td>
                          {m.passed ? "accepted" : "rejected"} <span className="mono subtle">r={m.reward.toFixed(2)}</span>
                        </td>
                        <td className="mono">{m.layer ?? "—"}</td>
                        <td>
                          <ErrorTypeChip type={m.error_type} />
                        </td>
                        <td className="vf-detail">{m.detail}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </div>
      </div>
    </section>
  );
}
