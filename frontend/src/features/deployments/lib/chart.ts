// The pass-rate chart's geometry: SVG paths for rates (0..1) over the series' points.
import type { SeriesPoint } from "../api/types";

export type Box = { width: number; height: number; top: number; right: number; bottom: number; left: number };

/** x of point i of n across the plot (one point sits at the left edge). */
export function xAt(i: number, n: number, box: Box): number {
  const span = box.width - box.left - box.right;
  return n <= 1 ? box.left : box.left + (i / (n - 1)) * span;
}

/** y of a rate between 0 (bottom) and 1 (top), clamped. */
export function yAt(rate: number, box: Box): number {
  const clamped = Math.min(1, Math.max(0, rate));
  return box.height - box.bottom - clamped * (box.height - box.top - box.bottom);
}

/** "M..L.." through the values; a null (nothing verified yet) lifts the pen. */
export function ratePath(values: (number | null | undefined)[], box: Box): string {
  let d = "";
  let pen = false;
  values.forEach((v, i) => {
    if (v === null || v === undefined || !Number.isFinite(v)) {
      pen = false;
      return;
    }
    d += `${pen ? "L" : "M"}${xAt(i, values.length, box).toFixed(1)},${yAt(v, box).toFixed(1)}`;
    pen = true;
  });
  return d;
}

/** Where the share changes (a new step begins): the indices of those points and their share. */
export function stepChanges(series: Pick<SeriesPoint, "step" | "share">[]): { index: number; share: number }[] {
  const out: { index: number; share: number }[] = [];
  series.forEach((p, i) => {
    if (i === 0 || p.step !== series[i - 1]!.step) out.push({ index: i, share: p.share });
  });
  return out;
}

/** The last value that is not null, for the chart's description. */
export function lastValue(values: (number | null | undefined)[]): number | null {
  for (let i = values.length - 1; i >= 0; i -= 1) {
    const v = values[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) return v;
  }
  return null;
}
