// Small helpers the hand-written SVG charts share: linear scales and readable ticks.

export type Margin = { top: number; right: number; bottom: number; left: number };

export const DEFAULT_MARGIN: Margin = { top: 12, right: 16, bottom: 40, left: 48 };

/** Maps [d0, d1] onto [r0, r1]; a zero-width domain maps to r0. */
export function linear(d0: number, d1: number, r0: number, r1: number): (value: number) => number {
  const span = d1 - d0;
  return (value) => (span === 0 ? r0 : r0 + ((value - d0) / span) * (r1 - r0));
}

/** About `count` round tick values from 0 to at least `max` (1, 2 or 5 times a power of ten apart). */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** Step labels thinned to at most `count`, always keeping the first and last. */
export function thinIndices(length: number, count = 6): number[] {
  if (length <= count) return Array.from({ length }, (_, i) => i);
  const every = Math.ceil((length - 1) / (count - 1));
  const out: number[] = [];
  for (let i = 0; i < length - 1; i += every) out.push(i);
  if (length - 1 - (out[out.length - 1] ?? 0) < every / 2) out.pop();
  out.push(length - 1);
  return out;
}

export function percent(value: number, digits = 0): string {
  return `${(value * 100).toFixed(digits)}%`;
}

/**
 * Colours for ordered categories such as difficulty levels, light (easy) to dark (hard),
 * all from the accent's hue so a stacked chart reads as one scale.
 */
const LEVEL_COLORS = ["#c7d2fe", "#a5b4fc", "#818cf8", "#6366f1", "#4f46e5", "#4338ca", "#3730a3", "#312e81"];

export function levelColor(index: number, total: number): string {
  const at = total <= 1 ? 4 : Math.round((index / (total - 1)) * (LEVEL_COLORS.length - 1));
  return LEVEL_COLORS[Math.min(LEVEL_COLORS.length - 1, Math.max(0, at))] ?? "#6366f1";
}

/** Distinct colours for unordered series (families, splits). */
export const SERIES_COLORS = ["#4f46e5", "#f59e0b", "#0d9488", "#db2777", "#65a30d", "#7c3aed", "#0284c7"];
