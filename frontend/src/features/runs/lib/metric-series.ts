// A run's metrics as the charts read them: per key, steps ascending with one value each.
// Points arrive from the REST history, the live stream and the polling fallback, in any
// order and possibly twice; (key, step) is a point's identity, so a later one overwrites.

/** Points per key in columns sorted by step: what the metrics endpoint and the stream send. */
export type Columns = Record<
  string,
  { step: number[]; value: (number | null)[]; wall_time?: number[]; tokens?: (number | null)[] }
>;

export type Series = { x: number[]; y: (number | null)[] };

export type RunMetrics = {
  /** The newest sequence number held: where the stream or a poll resumes. */
  seq: number | null;
  series: Record<string, Series>;
};

export const EMPTY_METRICS: RunMetrics = { seq: null, series: {} };

/** Index of the first step >= `step` (binary search; x ascending). */
function lowerBound(x: number[], step: number): number {
  let lo = 0;
  let hi = x.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (x[mid]! < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insert(series: Series, step: number, value: number | null): void {
  const last = series.x[series.x.length - 1];
  if (last === undefined || step > last) {
    // Live points come in step order: the common case appends.
    series.x.push(step);
    series.y.push(value);
    return;
  }
  const at = lowerBound(series.x, step);
  if (series.x[at] === step) series.y[at] = value;
  else {
    series.x.splice(at, 0, step);
    series.y.splice(at, 0, value);
  }
}

/**
 * `columns` laid over `current`. Series that received points are new objects (new arrays),
 * the others keep their identity, so only the charts that changed redraw.
 */
export function mergeColumns(current: RunMetrics | undefined, columns: Columns, seq: number | null): RunMetrics {
  const base = current ?? EMPTY_METRICS;
  const series = { ...base.series };
  for (const [key, column] of Object.entries(columns)) {
    const old = series[key];
    const next: Series = old ? { x: old.x.slice(), y: old.y.slice() } : { x: [], y: [] };
    for (let i = 0; i < column.step.length; i++) insert(next, column.step[i]!, column.value[i] ?? null);
    series[key] = next;
  }
  const newest = seq === null ? base.seq : base.seq === null ? seq : Math.max(base.seq, seq);
  return { seq: newest, series };
}

/** A whole history: it replaces what was held (the server downsampled it afresh). */
export function fromColumns(columns: Columns, seq: number): RunMetrics {
  return mergeColumns(undefined, columns, seq);
}

/** The last reported value of a key, or null. */
export function latest(metrics: RunMetrics | undefined, key: string): number | null {
  const s = metrics?.series[key];
  return s && s.y.length > 0 ? (s.y[s.y.length - 1] ?? null) : null;
}
