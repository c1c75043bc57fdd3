// P(yes) of each labelled example on a 0–1 axis, one row per label, with the chosen threshold.
import { useId } from "react";

import type { JudgeScore } from "../types";
import { formatThreshold } from "./visuals";

const WIDTH = 480;
const PAD_X = 40;
const ROWS = { good: 22, bad: 50 } as const;
const HEIGHT = 90;
const AXIS_Y = 68;

function x(p: number): number {
  return PAD_X + Math.max(0, Math.min(1, p)) * (WIDTH - 2 * PAD_X);
}

export function JudgeStripPlot({ scores, threshold }: { scores: JudgeScore[]; threshold: number }) {
  const titleId = useId();
  return (
    <svg
      className="vf-strip"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-labelledby={titleId}
      preserveAspectRatio="xMidYMid meet"
    >
      <title id={titleId}>{`P(yes) of ${scores.length} labelled examples, threshold ${formatThreshold(threshold)}`}</title>
      {(["good", "bad"] as const).map((label) => (
        <text key={label} x={PAD_X - 8} y={ROWS[label] + 4} textAnchor="end" className="vf-strip-label">
          {label}
        </text>
      ))}
      <line x1={x(0)} x2={x(1)} y1={AXIS_Y} y2={AXIS_Y} className="vf-strip-axis" />
      {[0, 0.5, 1].map((tick) => (
        <text key={tick} x={x(tick)} y={AXIS_Y + 14} textAnchor="middle" className="vf-strip-label">
          {tick}
        </text>
      ))}
      {scores.map((s) => (
        <circle
          key={s.index}
          data-testid="judge-score"
          data-label={s.label}
          cx={x(s.p_yes)}
          cy={ROWS[s.label]}
          r={5}
          className={`vf-strip-dot is-${s.label}`}
        >
          <title>{`Example ${s.index + 1} (${s.label}): P(yes) ${s.p_yes.toFixed(3)}`}</title>
        </circle>
      ))}
      <line
        data-testid="judge-threshold"
        x1={x(threshold)}
        x2={x(threshold)}
        y1={8}
        y2={AXIS_Y}
        className="vf-strip-threshold"
      />
    </svg>
  );
}
