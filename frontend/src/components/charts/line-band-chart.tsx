import { ChartFrame, XAxis, YAxis, type LegendItem } from "./chart-frame";
import { DEFAULT_MARGIN, linear, percent } from "./scale";

export type LineSeries = {
  key: string;
  label: string;
  color: string;
  values: (number | null)[];
  /** A faint, thin line for noisy raw values behind a smoothed one. */
  faint?: boolean;
};

const WIDTH = 560;
const HEIGHT = 200;

function linePath(x: number[], values: (number | null)[], xs: (v: number) => number, ys: (v: number) => number) {
  let d = "";
  let pen = false;
  values.forEach((v, i) => {
    if (v === null || v === undefined || Number.isNaN(v)) {
      pen = false;
      return;
    }
    d += `${pen ? "L" : "M"}${xs(x[i] ?? 0).toFixed(1)},${ys(v).toFixed(1)}`;
    pen = true;
  });
  return d;
}

/**
 * Rates between 0 and 1 over x, with a shaded target band [lo, hi]: the curriculum's
 * view of "slightly above current ability". Gaps (null) break the line.
 */
export function LineBandChart({
  title,
  x,
  series,
  band,
  bandLabel = "Target band",
  xLabel,
  yLabel,
  height = HEIGHT,
}: {
  title: string;
  x: number[];
  series: LineSeries[];
  band?: [number, number];
  bandLabel?: string;
  xLabel?: string;
  yLabel?: string;
  height?: number;
}) {
  const m = DEFAULT_MARGIN;
  const xs = linear(x[0] ?? 0, x[x.length - 1] ?? 1, m.left, WIDTH - m.right);
  const ys = linear(0, 1, height - m.bottom, m.top);
  const legend: LegendItem[] = [
    ...series.map((s) => ({ label: s.label, color: s.color, kind: "line" as const })),
    ...(band ? [{ label: `${bandLabel} ${percent(band[0])}–${percent(band[1])}`, color: "#16a34a", kind: "band" as const }] : []),
  ];
  const main = series.find((s) => !s.faint) ?? series[0];
  const lastValue = main ? [...main.values].reverse().find((v) => v !== null && v !== undefined) : undefined;
  const description = `${series.map((s) => s.label).join(" and ")} over ${x.length} ${xLabel ?? "points"}${
    band ? `, target band ${percent(band[0])} to ${percent(band[1])}` : ""
  }${lastValue !== undefined && lastValue !== null ? `; last ${main?.label} ${percent(lastValue)}` : ""}.`;

  return (
    <ChartFrame title={title} description={description} width={WIDTH} height={height} legend={legend}>
      {band && (
        <rect
          className="chart-band"
          data-band={`${band[0]}-${band[1]}`}
          x={m.left}
          width={WIDTH - m.left - m.right}
          y={ys(band[1])}
          height={Math.max(0, ys(band[0]) - ys(band[1]))}
          fill="#16a34a"
          fillOpacity={0.1}
          stroke="#16a34a"
          strokeOpacity={0.45}
          strokeDasharray="4 3"
        >
          <title>{`${bandLabel}: ${percent(band[0])}–${percent(band[1])}`}</title>
        </rect>
      )}
      <YAxis ticks={[0, 0.25, 0.5, 0.75, 1]} y={ys} left={m.left} right={WIDTH - m.right} format={(v) => percent(v)} label={yLabel} top={m.top} bottom={height - m.bottom} />
      {series.map((s) => (
        <path
          key={s.key}
          className="chart-line"
          data-series={s.key}
          d={linePath(x, s.values, xs, ys)}
          fill="none"
          stroke={s.color}
          strokeWidth={s.faint ? 1 : 2}
          strokeOpacity={s.faint ? 0.35 : 1}
          strokeLinejoin="round"
        >
          <title>{s.label}</title>
        </path>
      ))}
      <XAxis x={x} xs={xs} left={m.left} right={WIDTH - m.right} bottom={height - m.bottom} height={height} label={xLabel} />
    </ChartFrame>
  );
}
