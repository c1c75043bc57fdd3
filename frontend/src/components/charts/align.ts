// Series measured at different steps (several runs, or metrics logged at different
// intervals) laid on one shared x axis, as uPlot draws them. Where a series has no point at
// an x it gets `undefined`, which uPlot draws across; a point the run reported as missing
// (null, for NaN) stays null and breaks the line, so a real gap is never papered over.

export type XY = { x: ArrayLike<number>; y: ArrayLike<number | null> };

export type Aligned = [number[], ...(number | null | undefined)[][]];

function sameX(series: XY[]): boolean {
  const first = series[0]?.x;
  if (!first) return true;
  return series.every((s) => {
    if (s.x === first) return true;
    if (s.x.length !== first.length) return false;
    for (let i = 0; i < first.length; i++) if (s.x[i] !== first[i]) return false;
    return true;
  });
}

/** The sorted union of every series' x (each series' x must be ascending). */
function unionX(series: XY[]): number[] {
  const all: number[] = [];
  for (const s of series) for (let i = 0; i < s.x.length; i++) all.push(s.x[i] as number);
  all.sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of all) if (out.length === 0 || out[out.length - 1] !== v) out.push(v);
  return out;
}

export function alignSeries(series: XY[]): Aligned {
  if (series.length === 0) return [[]];
  if (sameX(series)) {
    // The common case (metrics of one run): no copy of x beyond one array.
    const x = Array.from(series[0]!.x);
    return [x, ...series.map((s) => Array.from(s.y))];
  }
  const x = unionX(series);
  const columns = series.map((s) => {
    const column = new Array<number | null | undefined>(x.length);
    let j = 0;
    for (let i = 0; i < x.length && j < s.x.length; i++) {
      if (s.x[j] === x[i]) {
        column[i] = s.y[j] ?? null;
        j++;
      }
    }
    return column;
  });
  return [x, ...columns];
}

/** How many real (non-null) values the series hold together. */
export function countPoints(series: XY[]): number {
  let n = 0;
  for (const s of series) for (let i = 0; i < s.y.length; i++) if (s.y[i] !== null && s.y[i] !== undefined) n++;
  return n;
}

/**
 * An exponential moving average with TensorBoard's debiasing, so the first points are not
 * pulled towards zero: `weight` 0 is the raw series, 0.99 nearly flat. A reported gap (null)
 * stays a gap and does not move the average; a hole (undefined) stays a hole.
 */
export function smooth(column: ArrayLike<number | null | undefined>, weight: number): (number | null | undefined)[] {
  const out = new Array<number | null | undefined>(column.length);
  let last = 0;
  let count = 0;
  for (let i = 0; i < column.length; i++) {
    const v = column[i];
    if (v === null || v === undefined || !Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * weight + (1 - weight) * v;
    count += 1;
    out[i] = last / (1 - weight ** count);
  }
  return out;
}
