// One row per family: each side's success, the difference with its 95% paired-bootstrap
// interval drawn as a bar around zero, and the verdict against the family's threshold.
import type { FamilyRow } from "../api/reports";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pts = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}`;

/** The axis of every bar: symmetric around zero, wide enough for the widest interval. */
export function ciScale(rows: FamilyRow[]): number {
  const widest = Math.max(0.05, ...rows.flatMap((r) => [Math.abs(r.low), Math.abs(r.high), r.threshold_pts / 100]));
  return Math.min(1, Math.ceil(widest * 20) / 20);
}

function CiBar({ row, scale }: { row: FamilyRow; scale: number }) {
  const width = 160;
  const x = (v: number) => ((v / scale + 1) / 2) * width;
  const threshold = -row.threshold_pts / 100;
  return (
    <svg
      className={`rp-ci rp-${row.verdict}`}
      width={width}
      height={18}
      role="img"
      aria-label={`${row.family}: ${pts(row.difference)} pts, CI [${pts(row.low)}, ${pts(row.high)}]`}
    >
      <line className="rp-ci-zero" x1={x(0)} x2={x(0)} y1={0} y2={18} />
      {threshold >= -scale && <line className="rp-ci-threshold" x1={x(threshold)} x2={x(threshold)} y1={2} y2={16} />}
      <rect className="rp-ci-interval" x={x(row.low)} y={6} width={Math.max(2, x(row.high) - x(row.low))} height={6} rx={2} />
      <circle className="rp-ci-point" cx={x(row.difference)} cy={9} r={3.5} />
    </svg>
  );
}

export function FamilyTable({ rows }: { rows: FamilyRow[] }) {
  const scale = ciScale(rows);
  return (
    <table className="table" aria-label="Families">
      <thead>
        <tr>
          <th>Family</th>
          <th>Tasks</th>
          <th>Baseline</th>
          <th>Candidate</th>
          <th>Difference (pts)</th>
          <th>95% CI (±{Math.round(scale * 100)} pts)</th>
          <th>Verdict</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.family}>
            <td>{row.family}</td>
            <td>{row.tasks}</td>
            <td>{pct(row.baseline)}</td>
            <td>{pct(row.candidate)}</td>
            <td>
              {pts(row.difference)} <span className="subtle">[{pts(row.low)}, {pts(row.high)}]</span>
            </td>
            <td>
              <CiBar row={row} scale={scale} />
            </td>
            <td>
              <span className={`rp-verdict rp-${row.verdict}`} title={`threshold ${row.threshold_pts} pts`}>
                {row.verdict}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
