// The analysis' checks: the pass-rate test and the guardrails on errors, latency and length.
import type { Check, Guardrails } from "../api/types";
import { formatCheckValue } from "../lib/format";

/** The limits the canary was started with. */
export function GuardrailSettings({ guardrails }: { guardrails: Guardrails }) {
  const entries = Object.entries(guardrails ?? {}).filter(([, v]) => v !== undefined && v !== null);
  if (!entries.length) return null;
  return (
    <p className="subtle dp-mono" aria-label="Guardrail settings">
      {entries.map(([k, v]) => `${k} = ${String(v)}`).join(" · ")}
    </p>
  );
}

const TONES: Record<string, string> = { pass: "badge-success", fail: "badge-danger", pending: "badge-muted" };

export function GuardrailChecks({ checks }: { checks: Check[] }) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Guardrail checks">
        <thead>
          <tr>
            <th>Check</th>
            <th>Status</th>
            <th>Value</th>
            <th>Limit</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {checks.length === 0 && (
            <tr>
              <td colSpan={5} className="subtle">
                No analysis yet.
              </td>
            </tr>
          )}
          {checks.map((c) => (
            <tr key={c.name}>
              <td className="dp-mono">{c.name}</td>
              <td>
                <span className={`badge ${TONES[c.status] ?? "badge-muted"}`}>{c.status}</span>
              </td>
              <td>{formatCheckValue(c.value)}</td>
              <td>{formatCheckValue(c.limit)}</td>
              <td className="dp-wrap">{c.detail || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
