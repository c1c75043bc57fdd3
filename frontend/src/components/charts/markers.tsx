// Vertical lines with a label across every chart of a page: what happened to a run at a step
// (a curriculum change, a pause, a resume, a lost worker), so a bend in a curve can be read against its
// cause. A page provides them once (ChartMarkersContext); each chart draws them on its canvas
// and lists them under its legend, for readers who cannot see the canvas.
import { createContext, useContext } from "react";
import type uPlot from "uplot";

export type ChartMarker = {
  /** The step after which it took effect. */
  x: number;
  label: string;
  /** Colours it: `curriculum`, `pause`, `resume`, `budget`, `worker_lost` or `recovered`. */
  kind: string;
};

export const ChartMarkersContext = createContext<readonly ChartMarker[]>([]);

export function useChartMarkers(): readonly ChartMarker[] {
  return useContext(ChartMarkersContext);
}

export const MARKER_COLORS: Record<string, string> = {
  curriculum: "#7c3aed",
  pause: "#b45309",
  budget: "#dc2626",
  resume: "#16a34a",
  worker_lost: "#be123c",
  recovered: "#0891b2",
};
const FALLBACK_COLOR = "#52525b";
const LABEL_CHARS = 28;

/** Draws `markers` over the plot (a uPlot `draw` hook): a dashed line and a short label. */
export function drawMarkers(u: uPlot, markers: readonly ChartMarker[]): void {
  if (markers.length === 0) return;
  const ratio = typeof window !== "undefined" ? window.devicePixelRatio || 1 : 1;
  const { left, top, width, height } = u.bbox;
  const ctx = u.ctx;
  ctx.save();
  ctx.font = `${10 * ratio}px system-ui, sans-serif`;
  ctx.textBaseline = "top";
  ctx.lineWidth = ratio;
  markers.forEach((marker, i) => {
    const x = Math.round(u.valToPos(marker.x, "x", true));
    if (!Number.isFinite(x) || x < left || x > left + width) return;
    const color = MARKER_COLORS[marker.kind] ?? FALLBACK_COLOR;
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.setLineDash([4 * ratio, 3 * ratio]);
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
    const text = marker.label.length > LABEL_CHARS ? `${marker.label.slice(0, LABEL_CHARS - 1)}…` : marker.label;
    // Right of the line, or left of it near the right edge; stacked so neighbours stay legible.
    // The alignment is set each time: uPlot leaves its axes' alignment on the context.
    const fits = x + 3 * ratio + ctx.measureText(text).width <= left + width;
    ctx.textAlign = fits ? "left" : "right";
    ctx.fillText(text, fits ? x + 3 * ratio : x - 3 * ratio, top + 2 * ratio + (i % 3) * 12 * ratio);
  });
  ctx.restore();
}

/** The markers as text under a chart's legend. */
export function MarkerList({ markers }: { markers: readonly ChartMarker[] }) {
  if (markers.length === 0) return null;
  return (
    <ul className="ts-chart-markers" aria-label="Events on this chart">
      {markers.map((m, i) => (
        <li key={i} data-marker-step={m.x} data-marker-kind={m.kind}>
          <span className="ts-chart-marker-swatch" style={{ borderColor: MARKER_COLORS[m.kind] ?? FALLBACK_COLOR }} aria-hidden="true" />
          Step {m.x}: {m.label}
        </li>
      ))}
    </ul>
  );
}
