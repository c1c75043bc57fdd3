// The capability profile of both sides: success by difficulty (one small chart per family),
// failed samples by verifier layer, pass@1 against pass@k, stability over turns (families
// played as environments), and the candidate's worst tasks.
import type { Profile } from "../api/reports";
import { StabilityPlots } from "./stability-plots";

type Level = Profile["by_difficulty"][string][number];
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

function LevelChart({ family, baseline, candidate }: { family: string; baseline: Level[]; candidate: Level[] }) {
  const levels = [...new Set([...baseline, ...candidate].map((l) => l.difficulty))].sort((a, b) => a - b);
  const width = 220;
  const height = 120;
  const pad = 24;
  const x = (d: number) => pad + (levels.length < 2 ? 0.5 : levels.indexOf(d) / (levels.length - 1)) * (width - 2 * pad);
  const y = (s: number) => height - pad - s * (height - 2 * pad);
  const path = (points: Level[]) => points.map((p, i) => `${i ? "L" : "M"}${x(p.difficulty)},${y(p.success)}`).join(" ");
  return (
    <figure className="rp-level-chart">
      <svg width={width} height={height} role="img" aria-label={`${family}: success by difficulty`}>
        <line className="rp-axis" x1={pad} x2={width - pad} y1={y(0)} y2={y(0)} />
        <line className="rp-grid" x1={pad} x2={width - pad} y1={y(1)} y2={y(1)} />
        <text x={2} y={y(1) + 4} className="rp-tick">100%</text>
        <text x={2} y={y(0) + 4} className="rp-tick">0%</text>
        {levels.map((d) => (
          <text key={d} x={x(d)} y={height - 6} className="rp-tick" textAnchor="middle">d{d}</text>
        ))}
        <path className="rp-line rp-line-baseline" d={path(baseline)} />
        <path className="rp-line rp-line-candidate" d={path(candidate)} />
        {candidate.map((p) => (
          <circle key={p.difficulty} className="rp-dot-candidate" cx={x(p.difficulty)} cy={y(p.success)} r={3}>
            <title>{`d${p.difficulty}: ${pct(p.success)} over ${p.tasks} tasks`}</title>
          </circle>
        ))}
      </svg>
      <figcaption>{family}</figcaption>
    </figure>
  );
}

function ErrorsByLayer({ profile, label }: { profile: Profile; label: string }) {
  const rows = Object.entries(profile.errors_by_layer).flatMap(([family, layers]) =>
    Object.entries(layers).flatMap(([stage, errors]) =>
      Object.entries(errors).map(([error, count]) => ({ family, stage, error, count })),
    ),
  );
  if (!rows.length) return <p className="subtle">{label}: no failed samples.</p>;
  return (
    <>
    <h3 className="rp-subhead">{label}: failed samples by verifier layer</h3>
    <table className="table" aria-label={`${label} errors by layer`}>
      <thead>
        <tr><th>Family</th><th>Layer</th><th>Error</th><th>Failed samples</th></tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.family}/${r.stage}/${r.error}`}>
            <td>{r.family}</td><td>{r.stage}</td><td>{r.error}</td><td>{r.count}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </>
  );
}

export function ProfilePlots({ candidate, baseline }: { candidate: Profile; baseline: Profile }) {
  const families = Object.keys(candidate.by_difficulty);
  return (
    <div className="stack">
      <h3 className="rp-subhead">Success by difficulty</h3>
      <div className="rp-legend subtle">
        <span className="rp-key rp-key-baseline" /> baseline <span className="rp-key rp-key-candidate" /> candidate
      </div>
      <div className="rp-charts">
        {families.map((f) => (
          <LevelChart key={f} family={f} candidate={candidate.by_difficulty[f] ?? []} baseline={baseline.by_difficulty[f] ?? []} />
        ))}
      </div>
      <h3 className="rp-subhead">Stability over repeated samples: pass@1 against pass@k</h3>
      <div className="rp-scroll">
      <table className="table" aria-label="pass@1 and pass@k">
        <thead>
          <tr><th>Family</th><th>k</th><th>Base pass@1</th><th>Base pass@k</th><th>Cand. pass@1</th><th>Cand. pass@k</th></tr>
        </thead>
        <tbody>
          {families.map((f) => {
            const c = candidate.pass_at_k[f];
            const b = baseline.pass_at_k[f];
            return (
              <tr key={f}>
                <td>{f}</td><td>{c?.k}</td>
                <td>{b ? pct(b.pass_at_1) : "–"}</td><td>{b ? pct(b.pass_at_k) : "–"}</td>
                <td>{c ? pct(c.pass_at_1) : "–"}</td><td>{c ? pct(c.pass_at_k) : "–"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      </div>
      <StabilityPlots candidate={candidate} baseline={baseline} />
      <ErrorsByLayer profile={candidate} label="Candidate" />
      <ErrorsByLayer profile={baseline} label="Baseline" />
      <h3 className="rp-subhead">Candidate's worst tasks</h3>
      <div className="rp-scroll">
      <table className="table" aria-label="Worst tasks">
        <thead>
          <tr><th>Task</th><th>Family</th><th>Difficulty</th><th>Passed</th><th>Errors</th></tr>
        </thead>
        <tbody>
          {candidate.worst_tasks.map((t) => (
            <tr key={`${t.family}/${t.task_hash}`}>
              <td><code>{t.task_hash.slice(0, 12)}</code></td><td>{t.family}</td><td>{t.difficulty}</td>
              <td>{t.passes}/{t.k}</td>
              <td className="rp-wrap">{Object.entries(t.errors).map(([e, n]) => `${e} ×${n}`).join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </div>
  );
}
