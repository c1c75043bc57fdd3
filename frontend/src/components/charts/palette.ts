// Colours for unordered series (metrics of one panel, or runs side by side), starting with the
// app's accent and chosen to stay apart from each other on a white background.
const SERIES_COLORS = ["#4f46e5", "#0891b2", "#16a34a", "#d97706", "#db2777", "#7c3aed", "#dc2626", "#475569", "#65a30d", "#0d9488"];

export function seriesColor(index: number): string {
  return SERIES_COLORS[((index % SERIES_COLORS.length) + SERIES_COLORS.length) % SERIES_COLORS.length]!;
}
