import { useId, type ReactNode } from "react";

import { thinIndices } from "./scale";
import "./charts.css";

export type LegendItem = { label: string; color: string; kind?: "swatch" | "line" | "band" };

/**
 * The figure around an SVG chart: a title the SVG is labelled by, a text description for
 * screen readers, and a legend. The SVG scales to its container's width.
 */
export function ChartFrame({
  title,
  description,
  width,
  height,
  legend,
  children,
  footer,
}: {
  title: string;
  description: string;
  width: number;
  height: number;
  legend?: LegendItem[];
  children: ReactNode;
  footer?: ReactNode;
}) {
  const titleId = useId();
  const descId = useId();
  return (
    <figure className="chart">
      <figcaption className="chart-title" id={titleId}>
        {title}
      </figcaption>
      <svg
        className="chart-svg"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby={titleId}
        aria-describedby={descId}
      >
        <desc id={descId}>{description}</desc>
        {children}
      </svg>
      {legend && legend.length > 0 && (
        <ul className="chart-legend" aria-label={`${title} legend`}>
          {legend.map((item) => (
            <li key={item.label}>
              <span
                className={`chart-legend-mark chart-legend-${item.kind ?? "swatch"}`}
                style={{ background: item.color, borderColor: item.color }}
                aria-hidden="true"
              />
              {item.label}
            </li>
          ))}
        </ul>
      )}
      {footer}
    </figure>
  );
}

/** Horizontal grid lines with their value labels on the left. */
export function YAxis({
  ticks,
  y,
  left,
  right,
  format = String,
  label,
  top,
  bottom,
}: {
  ticks: number[];
  y: (v: number) => number;
  left: number;
  right: number;
  format?: (v: number) => string;
  label?: string;
  top: number;
  bottom: number;
}) {
  return (
    <g className="chart-axis" aria-hidden="true">
      {ticks.map((t) => (
        <g key={t}>
          <line x1={left} x2={right} y1={y(t)} y2={y(t)} className="chart-grid" />
          <text x={left - 6} y={y(t)} dy="0.32em" textAnchor="end">
            {format(t)}
          </text>
        </g>
      ))}
      {label && (
        <text
          className="chart-axis-label"
          transform={`translate(12 ${(top + bottom) / 2}) rotate(-90)`}
          textAnchor="middle"
        >
          {label}
        </text>
      )}
    </g>
  );
}

export function XAxisLabel({ x, y, children }: { x: number; y: number; children: ReactNode }) {
  return (
    <text className="chart-axis chart-axis-label" x={x} y={y} textAnchor="middle" aria-hidden="true">
      {children}
    </text>
  );
}

/** Numeric x values (steps) thinned to a few readable labels, and the axis title. */
export function XAxis({
  x,
  xs,
  left,
  right,
  bottom,
  height,
  label,
}: {
  x: number[];
  xs: (v: number) => number;
  left: number;
  right: number;
  bottom: number;
  height: number;
  label?: string;
}) {
  return (
    <>
      <g className="chart-axis" aria-hidden="true">
        {thinIndices(x.length).map((i) => (
          <text key={i} x={xs(x[i] ?? 0)} y={bottom + 14} textAnchor="middle">
            {x[i]}
          </text>
        ))}
      </g>
      {label && (
        <XAxisLabel x={(left + right) / 2} y={height - 6}>
          {label}
        </XAxisLabel>
      )}
    </>
  );
}
