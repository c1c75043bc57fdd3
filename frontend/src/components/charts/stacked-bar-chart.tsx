import { ChartFrame, XAxisLabel, YAxis } from "./chart-frame";
import { DEFAULT_MARGIN, linear, niceTicks } from "./scale";

export type BarSeries = { key: string; label: string; color: string; values: number[] };

const WIDTH = 560;
const HEIGHT = 220;

/**
 * Vertical bars, one per category, with the series stacked inside each bar
 * (a histogram when the categories are bins). Each segment carries a tooltip and
 * `data-series`/`data-value` so tests and tools can read the plotted numbers.
 */
export function StackedBarChart({
  title,
  categories,
  series,
  xLabel,
  yLabel,
  height = HEIGHT,
}: {
  title: string;
  categories: string[];
  series: BarSeries[];
  xLabel?: string;
  yLabel?: string;
  height?: number;
}) {
  const m = DEFAULT_MARGIN;
  const totals = categories.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const ticks = niceTicks(Math.max(1, ...totals));
  const top = ticks[ticks.length - 1] ?? 1;
  const y = linear(0, top, height - m.bottom, m.top);
  const band = (WIDTH - m.left - m.right) / Math.max(1, categories.length);
  const barWidth = Math.min(56, band * 0.68);
  const description = categories
    .map((c, i) => `${xLabel ?? ""} ${c}: ${series.map((s) => `${s.label} ${s.values[i] ?? 0}`).join(", ")}`.trim())
    .join("; ");

  return (
    <ChartFrame
      title={title}
      description={description || "No data."}
      width={WIDTH}
      height={height}
      legend={series.map((s) => ({ label: s.label, color: s.color }))}
    >
      <YAxis ticks={ticks} y={y} left={m.left} right={WIDTH - m.right} label={yLabel} top={m.top} bottom={height - m.bottom} />
      {categories.map((category, i) => {
        const x = m.left + band * i + (band - barWidth) / 2;
        let base = 0;
        return (
          <g key={category} data-category={category}>
            {series.map((s) => {
              const value = s.values[i] ?? 0;
              const y0 = y(base);
              base += value;
              const y1 = y(base);
              if (value <= 0) return null;
              return (
                <rect
                  key={s.key}
                  className="chart-bar"
                  data-series={s.key}
                  data-value={value}
                  x={x}
                  y={y1}
                  width={barWidth}
                  height={Math.max(0, y0 - y1)}
                  fill={s.color}
                >
                  <title>{`${xLabel ? `${xLabel} ` : ""}${category} · ${s.label}: ${value}`}</title>
                </rect>
              );
            })}
            {(totals[i] ?? 0) > 0 && (
              <text className="chart-value" x={x + barWidth / 2} y={y(totals[i] ?? 0) - 4} textAnchor="middle">
                {totals[i]}
              </text>
            )}
            <text
              className="chart-axis"
              x={x + barWidth / 2}
              y={height - m.bottom + 14}
              textAnchor="middle"
              style={{ fontSize: 11, fill: "var(--color-text-subtle)" }}
            >
              {category}
            </text>
          </g>
        );
      })}
      <line className="chart-baseline" x1={m.left} x2={WIDTH - m.right} y1={y(0)} y2={y(0)} />
      {xLabel && (
        <XAxisLabel x={(m.left + WIDTH - m.right) / 2} y={height - 6}>
          {xLabel}
        </XAxisLabel>
      )}
    </ChartFrame>
  );
}
