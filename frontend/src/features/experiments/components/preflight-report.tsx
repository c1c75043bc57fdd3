import type { Preflight, PreflightFamily, PreflightResult } from "../api/preflight";

function percent(share: number | null | undefined): string {
  return share === null || share === undefined ? "—" : `${Math.round(share * 100)}%`;
}

function milliseconds(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

/** A share drawn as a bar with its number; `tone` colours what the share means. */
function ShareBar({ share, tone, label }: { share: number | null | undefined; tone: "pass" | "flat"; label: string }) {
  const width = share === null || share === undefined ? 0 : Math.round(share * 100);
  return (
    <div className="ex-pf-share" aria-label={`${label} ${percent(share)}`}>
      <span className="ex-pf-bar" data-tone={tone}>
        <span className="ex-pf-bar-fill" style={{ width: `${width}%` }} />
      </span>
      <span className="mono">{percent(share)}</span>
    </div>
  );
}

function FamilyTable({ family }: { family: PreflightFamily }) {
  const errors = Object.entries(family.error_types);
  return (
    <section className="ex-pf-family" aria-label={`Pre-flight of ${family.family}`}>
      <header className="ex-pf-family-head">
        <strong>{family.family}</strong>
        <span className="subtle">
          {family.tasks} tasks, {family.completions} completions · verifier p50 {milliseconds(family.latency_ms.p50)}, p95{" "}
          {milliseconds(family.latency_ms.p95)}
        </span>
      </header>
      <div className="table-wrap">
        <table className="table ex-pf-table" aria-label={`${family.family} by difficulty level`}>
          <thead>
            <tr>
              <th>Level</th>
              <th>Tasks</th>
              <th title="Share of completions the verifier passed">Predicted pass rate</th>
              <th title="Share of groups whose G answers all got the same reward: they teach nothing (frac_reward_zero_std)">
                Groups without signal
              </th>
              <th>Mean reward</th>
            </tr>
          </thead>
          <tbody>
            {family.levels.map((level) => (
              <tr key={level.level} data-level={level.level}>
                <td className="mono">{level.level}</td>
                <td className="mono">{level.tasks}</td>
                <td>
                  <ShareBar share={level.pass_rate} tone="pass" label={`level ${level.level} pass rate`} />
                </td>
                <td>
                  <ShareBar share={level.frac_reward_zero_std} tone="flat" label={`level ${level.level} groups without signal`} />
                </td>
                <td className="mono">{level.mean_reward === null ? "—" : level.mean_reward.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">All</th>
              <td className="mono">{family.tasks}</td>
              <td>
                <ShareBar share={family.pass_rate} tone="pass" label="overall pass rate" />
              </td>
              <td>
                <ShareBar share={family.frac_reward_zero_std} tone="flat" label="overall groups without signal" />
              </td>
              <td className="mono">{family.mean_reward === null ? "—" : family.mean_reward.toFixed(2)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
      <div className="ex-chips" aria-label="Error types">
        <span className="subtle">Rejected by error type:</span>
        {errors.length === 0 ? (
          <span className="subtle">none</span>
        ) : (
          errors.map(([type, count]) => (
            <span key={type} className="ex-chip">
              {type} · {count}
            </span>
          ))
        )}
      </div>
    </section>
  );
}

/** What a finished pre-flight predicts: its warnings first, then each family by level. */
export function PreflightReport({ result }: { result: PreflightResult }) {
  const { settings } = result;
  return (
    <div className="stack ex-pf-report">
      <p className="subtle">
        {settings.model}, {settings.tasks_per_level} tasks per level × {settings.group_size} completions at temperature {settings.temperature}, up to{" "}
        {settings.max_new_tokens} tokens: {percent(result.pass_rate)} passed, {percent(result.frac_reward_zero_std)} of groups without signal.
      </p>
      {result.warnings.length > 0 ? (
        <ul className="ex-pf-warnings" aria-label="What to change">
          {result.warnings.map((warning) => (
            <li key={`${warning.family}-${warning.code}`} className={`alert ${warning.severity === "warning" ? "alert-warning" : "ex-pf-info"}`}>
              {warning.message}
            </li>
          ))}
        </ul>
      ) : (
        <div className="alert alert-success">Nothing to change: every level has learning signal.</div>
      )}
      {result.families.map((family) => (
        <FamilyTable key={family.family} family={family} />
      ))}
    </div>
  );
}

/** A running or failed pre-flight: its progress bar and message. */
export function PreflightProgress({ preflight }: { preflight: Preflight }) {
  const width = Math.round(preflight.progress * 100);
  return (
    <div className="ex-pf-progress" role="status" aria-live="polite">
      <span className="ex-pf-bar" data-tone={preflight.state === "failed" ? "failed" : "progress"}>
        <span className="ex-pf-bar-fill" style={{ width: `${preflight.state === "failed" ? 100 : width}%` }} />
      </span>
      <span className="subtle">
        {preflight.state === "queued" && "Waiting for a cpu worker…"}
        {preflight.state === "running" && `${width}% · ${preflight.message}`}
        {preflight.state === "failed" && `Failed: ${preflight.message}`}
        {preflight.state === "succeeded" && preflight.message}
      </span>
    </div>
  );
}
