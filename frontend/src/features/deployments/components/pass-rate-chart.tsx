// Verified pass rates of production and the candidate over the canary's analyses, with the
// step changes marked and the difference's confidence interval in words under it.
import { useId } from "react";

import type { PassRate, SeriesPoint } from "../api/types";
import { lastValue, ratePath, stepChanges, xAt, yAt, type Box } from "../lib/chart";
import { differenceText, formatRate, formatShare } from "../lib/format";

export const PRODUCTION_COLOR = "#16a34a";
export const CANDIDATE_COLOR = "#4f46e5";

const BOX: Box = { width: 760, height: 220, top: 12, right: 16, bottom: 28, left: 44 };
const TICKS = [0, 0.25, 0.5, 0.75, 1];

export function PassRateChart({ series, passRate }: { series: SeriesPoint[]; passRate: PassRate | undefined }) {
  const descId = useId();
  const production = series.map((p) => p.production);
  const candidate = series.map((p) => p.candidate);
  const changes = stepChanges(series);
  const lastP = lastValue(production);
  const lastC = lastValue(candidate);
  const description = series.length
    ? `Pass rates over ${series.length} analyses; last production ${formatRate(lastP)}, candidate ${formatRate(lastC)}.`
    : "No analysis yet.";
  return (
    <figure className="chart dp-chart" aria-label="Pass rate over time" data-points={series.length}>
      <figcaption className="chart-title">
        Pass rate over time
      </figcaption>
      <svg
        className="chart-svg"
        viewBox={`0 0 ${BOX.width} ${BOX.height}`}
        role="img"
        aria-label="Line chart"
        aria-describedby={descId}
      >
        <desc id={descId}>{description}</desc>
        <g className="chart-axis" aria-hidden="true">
          {TICKS.map((t) => (
            <g key={t}>
              <line x1={BOX.left} x2={BOX.width - BOX.right} y1={yAt(t, BOX)} y2={yAt(t, BOX)} className="chart-grid" />
              <text x={BOX.left - 6} y={yAt(t, BOX)} dy="0.32em" textAnchor="end">
                {formatRate(t)}
              </text>
            </g>
          ))}
          {changes.map(({ index, share }) => {
            const x = xAt(index, series.length, BOX);
            return (
              <g key={index}>
                <line x1={x} x2={x} y1={BOX.top} y2={BOX.height - BOX.bottom} className="dp-chart-step" />
                <text x={x + 3} y={BOX.height - BOX.bottom + 14}>
                  {formatShare(share)}
                </text>
              </g>
            );
          })}
        </g>
        <path className="chart-line" data-series="production" d={ratePath(production, BOX)} fill="none" stroke={PRODUCTION_COLOR} strokeWidth={2} strokeLinejoin="round">
          <title>Production</title>
        </path>
        <path className="chart-line" data-series="candidate" d={ratePath(candidate, BOX)} fill="none" stroke={CANDIDATE_COLOR} strokeWidth={2} strokeLinejoin="round">
          <title>Candidate</title>
        </path>
      </svg>
      <ul className="chart-legend" aria-label="Legend">
        <li>
          <span className="chart-legend-mark chart-legend-line" style={{ background: PRODUCTION_COLOR }} aria-hidden="true" />
          Production {formatRate(lastP, 1)}
        </li>
        <li>
          <span className="chart-legend-mark chart-legend-line" style={{ background: CANDIDATE_COLOR }} aria-hidden="true" />
          Candidate {formatRate(lastC, 1)}
        </li>
      </ul>
      <p className="dp-ci" aria-label="Pass rate difference">
        {differenceText(passRate)}
      </p>
    </figure>
  );
}
