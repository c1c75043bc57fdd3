import { ChartFrame, XAxis, YAxis } from "./chart-frame";
import { DEFAULT_MARGIN, linear, percent } from "./scale";

export type AreaSeries = { key: string; label: string; color: string; values: number[] };

const WIDTH = 560;
const HEIGHT = 200;

/**
 * Shares that sum to one at every x (a distribution over time), stacked as areas from
 * the first series at the bottom to the last at the top.
 */
export function StackedAreaChart({
  title,
  x,
  series,
  xLabel,
  yLabel,
  height = HEIGHT,
}: {
  title: string;
  x: number[];
  series: AreaSeries[];
  xLabel?: string;
  yLabel?: string;
  height?: number;
}) {
  const m = DEFAULT_MARGIN;
  const xs = linear(x[0] ?? 0, x[x.length - 1] ?? 1, m.left, WIDTH - m.right);
  const ys = linear(0, 1, height - m.bottom, m.top);
  const ticks = [0, 0.25, 0.5, 0.75, 1];

  const lower = x.map(() => 0);
  const paths = series.map((s) => {
    const bottom = lower.slice();
    const upper = bottom.map((b, i) => b + (s.values[i] ?? 0));
    upper.forEach((u, i) => (lower[i] = u));
    const top = x.map((v, i) => `${xs(v).toFixed(1)},${ys(Math.min(1, upper[i] ?? 0)).toFixed(1)}`);
    const back = x
      .map((v, i) => `${xs(v).toFixed(1)},${ys(Math.min(1, bottom[i] ?? 0)).toFixed(1)}`)
      .reverse();
    return { s, d: `M${top.join("L")}L${back.join("L")}Z` };
  });

  const last = x.length - 1;
  const description =
    x.length === 0
      ? "No data."
      : `From ${xLabel ?? "x"} ${x[0]} to ${x[last]}. At the start: ${series
          .map((s) => `${s.label} ${percent(s.values[0] ?? 0)}`)
          .join(", ")}. At the end: ${series.map((s) => `${s.label} ${percent(s.values[last] ?? 0)}`).join(", ")}.`;

  return (
    <ChartFrame
      title={title}
      description={description}
      width={WIDTH}
      height={height}
      legend={series.map((s) => ({ label: s.label, color: s.color }))}
    >
      <YAxis ticks={ticks} y={ys} left={m.left} right={WIDTH - m.right} format={(v) => percent(v)} label={yLabel} top={m.top} bottom={height - m.bottom} />
      {x.length > 1 &&
        paths.map(({ s, d }) => (
          <path key={s.key} className="chart-area" data-series={s.key} d={d} fill={s.color} stroke="#fff" strokeWidth={0.5}>
            <title>{s.label}</title>
          </path>
        ))}
      <XAxis x={x} xs={xs} left={m.left} right={WIDTH - m.right} bottom={height - m.bottom} height={height} label={xLabel} />
    </ChartFrame>
  );
}
