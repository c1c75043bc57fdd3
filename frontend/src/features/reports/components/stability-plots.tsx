// Stability over turns, for the families played as environments: per family, success
// against the turns an episode used, success within t turns (what a budget of t turns would
// give), and pass^k of a task's repeated episodes (the chance k of them all pass), candidate
// against baseline in the difficulty charts' style; then a table of each side's figures.
// Single-turn families have no entry, and a report without any shows nothing.
import type { components } from "@/api/schema";

import type { Profile } from "../api/reports";

type Stability = components["schemas"]["Stability"];
type Point = { x: number; y: number; title: string };

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

function XYChart({ label, caption, prefix, candidate, baseline }: {
  label: string; caption: string; prefix: string; candidate: Point[]; baseline: Point[];
}) {
  const xs = [...new Set([...baseline, ...candidate].map((p) => p.x))].sort((a, b) => a - b);
  const width = 220;
  const height = 120;
  const pad = 24;
  const x = (v: number) => pad + (xs.length < 2 ? 0.5 : xs.indexOf(v) / (xs.length - 1)) * (width - 2 * pad);
  const y = (s: number) => height - pad - s * (height - 2 * pad);
  const path = (points: Point[]) => points.map((p, i) => `${i ? "L" : "M"}${x(p.x)},${y(p.y)}`).join(" ");
  return (
    <figure className="rp-level-chart">
      <svg width={width} height={height} role="img" aria-label={label}>
        <line className="rp-axis" x1={pad} x2={width - pad} y1={y(0)} y2={y(0)} />
        <line className="rp-grid" x1={pad} x2={width - pad} y1={y(1)} y2={y(1)} />
        <text x={2} y={y(1) + 4} className="rp-tick">100%</text>
        <text x={2} y={y(0) + 4} className="rp-tick">0%</text>
        {xs.map((v) => (
          <text key={v} x={x(v)} y={height - 6} className="rp-tick" textAnchor="middle">{prefix}{v}</text>
        ))}
        <path className="rp-line rp-line-baseline" d={path(baseline)} />
        <path className="rp-line rp-line-candidate" d={path(candidate)} />
        {candidate.map((p) => (
          <circle key={p.x} className="rp-dot-candidate" cx={x(p.x)} cy={y(p.y)} r={3}>
            <title>{p.title}</title>
          </circle>
        ))}
      </svg>
      <figcaption>{caption}</figcaption>
    </figure>
  );
}

const byTurns = (s: Stability | undefined): Point[] =>
  (s?.by_turns_used ?? []).map((p) => ({ x: p.turns, y: p.success, title: `${p.turns} turns: ${pct(p.success)} of ${p.episodes} episodes passed` }));
const withinTurns = (s: Stability | undefined): Point[] =>
  (s?.within_turns ?? []).map((p) => ({ x: p.turns, y: p.success, title: `within ${p.turns} turns: ${pct(p.success)}` }));
const passHatK = (s: Stability | undefined): Point[] =>
  (s?.consistency.pass_hat_k ?? []).map((p) => ({ x: p.k, y: p.value, title: `pass^${p.k}: ${pct(p.value)}` }));

function Row({ family, side, s }: { family: string; side: string; s: Stability }) {
  const budgets = s.by_budget.map((b) => `${b.budget}: ${pct(b.success)}`).join(", ");
  return (
    <tr>
      <td>{family}</td><td>{side}</td><td>{s.episodes}</td><td>{pct(s.success)}</td>
      <td>{s.mean_turns.toFixed(2)}</td>
      <td>{s.mean_budget.toFixed(2)} <span className="subtle">({budgets})</span></td>
      <td>{s.consistency.agreement === null ? "–" : pct(s.consistency.agreement)}</td>
      <td>{pct(s.consistency.all_agree)}</td>
      <td>{s.tool_errors_per_episode.toFixed(2)}</td><td>{s.tokens_per_episode.toFixed(1)}</td>
    </tr>
  );
}

export function StabilityPlots({ candidate, baseline }: { candidate: Profile; baseline: Profile }) {
  const cand = candidate.stability ?? {};
  const base = baseline.stability ?? {};
  const families = [...new Set([...Object.keys(cand), ...Object.keys(base)])].sort();
  if (!families.length) return null;
  return (
    <section className="stack" aria-label="Stability over turns">
      <h3 className="rp-subhead">Stability over turns</h3>
      <p className="subtle">
        Families played as environments, k episodes per task: success against the turns used, success within t
        turns (a budget of t), and pass^k, the chance that k episodes of a task all pass.
      </p>
      {families.map((f) => (
        <div className="rp-charts" key={f}>
          <XYChart label={`${f}: success by turns used`} caption={`${f}: by turns used`} prefix="t"
            candidate={byTurns(cand[f])} baseline={byTurns(base[f])} />
          <XYChart label={`${f}: success within t turns`} caption={`${f}: within t turns`} prefix="t"
            candidate={withinTurns(cand[f])} baseline={withinTurns(base[f])} />
          <XYChart label={`${f}: pass^k of repeated episodes`} caption={`${f}: pass^k`} prefix="k"
            candidate={passHatK(cand[f])} baseline={passHatK(base[f])} />
        </div>
      ))}
      <div className="rp-scroll">
        <table className="table" aria-label="Stability over turns">
          <thead>
            <tr>
              <th>Family</th><th>Side</th><th>Episodes</th><th>Success</th><th>Turns used</th><th>Turn budget</th>
              <th>Agreement</th><th>All agree</th><th>Tool errors / episode</th><th>Tokens / episode</th>
            </tr>
          </thead>
          <tbody>
            {families.flatMap((f) => [
              base[f] ? <Row key={`${f}/b`} family={f} side="baseline" s={base[f]} /> : null,
              cand[f] ? <Row key={`${f}/c`} family={f} side="candidate" s={cand[f]} /> : null,
            ])}
          </tbody>
        </table>
      </div>
    </section>
  );
}
