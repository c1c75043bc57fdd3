// Line charts of metrics over steps, drawn by uPlot on a canvas so that a run's whole history
// (100k points and more) pans, hovers and updates live without a frame drop. The React side
// owns the frame, the hover legend and the description; uPlot owns the plot area.
import { useEffect, useId, useMemo, useRef, useState } from "react";
import type uPlot from "uplot";

import { alignSeries, countPoints, smooth, type Aligned } from "./align";
import { drawMarkers, MarkerList, useChartMarkers } from "./markers";
import "./charts.css";

export type ChartSeries = {
  /** Stable identity: a series whose key, label or colour changes rebuilds the plot. */
  key: string;
  label: string;
  color: string;
  /** Steps, ascending. */
  x: ArrayLike<number>;
  /** One value per step; null where the run reported no finite value (drawn as a gap). */
  y: ArrayLike<number | null>;
  dashed?: boolean;
  /** What this series measures, shown on hovering its legend entry. */
  description?: string;
};

type UPlotModule = { default: typeof uPlot };

let uplotModule: Promise<UPlotModule> | null = null;

/** uPlot and its stylesheet are fetched with the first chart, not with the app. */
function loadUPlot(): Promise<UPlotModule> {
  uplotModule ??= Promise.all([import("uplot"), import("uplot/dist/uPlot.min.css")]).then(([mod]) => mod);
  return uplotModule;
}

const AXIS_STROKE = "#71717a";
/** A press and release further apart than this is a drag (a zoom), not a click. */
const CLICK_SLOP_PX = 4;
const GRID_STROKE = "#e4e4e7";

/** 3 significant digits for small values, grouped thousands for large ones. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs === 0) return "0";
  if (abs < 0.001) return value.toExponential(2);
  return String(Number(value.toPrecision(3)));
}

function lastValue(column: ArrayLike<number | null | undefined> | undefined): number | null {
  if (!column) return null;
  for (let i = column.length - 1; i >= 0; i--) {
    const v = column[i];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/**
 * The y range: uPlot's own, except for a flat series, which it would centre in 0–100; a flat
 * line sits in the middle of a small band around its value instead (0–1 for zero, a share).
 */
export function yRange(min: number | null, max: number | null): [number, number] | null {
  if (min === null || max === null || min !== max) return null;
  if (min === 0) return [0, 1];
  const pad = Math.abs(min) * 0.5;
  return [min - pad, max + pad];
}

/** `#4f46e5` at `alpha` opacity, for the raw line behind a smoothed one. */
function faint(color: string, alpha = 0.25): string {
  const hex = color.replace("#", "");
  if (hex.length !== 6) return color;
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

function plotOptions(
  UPlot: typeof uPlot,
  series: ChartSeries[],
  smoothed: boolean,
  width: number,
  height: number,
  xLabel: string,
  hooks: { onCursor: (idx: number | null) => void; onZoom: () => void },
): uPlot.Options {
  const raw = series.map((s) => ({
    label: s.label,
    stroke: smoothed ? faint(s.color) : s.color,
    width: smoothed ? 1 : 1.5,
    dash: s.dashed ? [5, 4] : undefined,
    spanGaps: false,
    points: smoothed ? { show: false } : undefined,
  }));
  const trend = smoothed
    ? series.map((s) => ({ label: `${s.label} (smoothed)`, stroke: s.color, width: 1.75, dash: s.dashed ? [5, 4] : undefined, spanGaps: false, points: { show: false } }))
    : [];
  return {
    width,
    height,
    legend: { show: false },
    cursor: { drag: { x: true, y: false }, points: { size: 6 } },
    scales: {
      x: { time: false },
      y: { range: (_u, min, max) => yRange(min, max) ?? UPlot.rangeNum(min, max, 0.1, true) },
    },
    axes: [
      {
        stroke: AXIS_STROKE,
        grid: { stroke: GRID_STROKE, width: 1 },
        ticks: { stroke: GRID_STROKE, width: 1 },
        label: xLabel,
        labelSize: 18,
        labelFont: "11px system-ui, sans-serif",
        font: "11px system-ui, sans-serif",
      },
      {
        stroke: AXIS_STROKE,
        grid: { stroke: GRID_STROKE, width: 1 },
        ticks: { show: false },
        size: 52,
        font: "11px system-ui, sans-serif",
        values: (_u, values) => values.map((v) => formatValue(v)),
      },
    ],
    series: [{ label: xLabel }, ...raw, ...trend],
    hooks: {
      setCursor: [(u) => hooks.onCursor(u.cursor.idx ?? null)],
      setSelect: [(u) => u.select.width > 0 && hooks.onZoom()],
    },
  };
}

/**
 * Metrics (or one metric of several runs) over steps, with a hover legend that shows each
 * series' value at the hovered step (the last value otherwise) and one sentence saying what
 * is measured. Drag to zoom into a range of steps, double-click to zoom out.
 */
export function TimeSeriesChart({
  title,
  description,
  series,
  xLabel = "Step",
  height = 180,
  emptyText = "No points yet.",
  smoothing = 0,
  onStepClick,
  stepActionLabel = "Open step",
}: {
  title: string;
  /** What the chart measures, in one sentence (see lib/metric-descriptions). */
  description: string;
  series: ChartSeries[];
  xLabel?: string;
  height?: number;
  emptyText?: string;
  /** 0 draws the raw series; above, each is drawn smoothed over its faint raw line. */
  smoothing?: number;
  /** Makes points clickable: called with the step under the cursor (a drag still zooms). The
   * legend offers the same as a button, for the keyboard. */
  onStepClick?: (step: number) => void;
  /** The legend button's text before the step number. */
  stepActionLabel?: string;
}) {
  const titleId = useId();
  const descId = useId();
  const plotRef = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const zoomed = useRef(false);
  const [cursorIdx, setCursorIdx] = useState<number | null>(null);
  // A browser without canvas support still gets the legend with the latest values.
  const [unavailable, setUnavailable] = useState(false);

  const data: Aligned = useMemo(() => alignSeries(series), [series]);
  const smoothed = smoothing > 0;
  // What uPlot draws: the raw columns, then (when smoothing) their moving averages.
  const drawn = useMemo(
    () => (smoothed ? ([...data, ...data.slice(1).map((c) => smooth(c, smoothing))] as Aligned) : data),
    [data, smoothed, smoothing],
  );
  const points = useMemo(() => countPoints(series), [series]);
  // Events of the page (a run's curriculum changes, pauses) drawn across the plot.
  const markers = useChartMarkers();
  const markersRef = useRef(markers);
  markersRef.current = markers;
  // The plot is rebuilt only when what it draws changes shape, never for new points.
  const shape = JSON.stringify([height, xLabel, smoothed, series.map((s) => [s.key, s.label, s.color, !!s.dashed])]);
  const latest = useRef({ data: drawn, series, smoothed, onStepClick });
  latest.current = { data: drawn, series, smoothed, onStepClick };

  useEffect(() => {
    const element = plotRef.current;
    if (!element) return;
    let disposed = false;
    let stopResizing = () => {};
    loadUPlot().then(({ default: UPlot }) => {
      if (disposed) return;
      const width = Math.max(element.clientWidth, 200);
      const options = plotOptions(UPlot, latest.current.series, latest.current.smoothed, width, height, xLabel, {
        onCursor: (idx) => setCursorIdx((prev) => (prev === idx ? prev : idx)),
        onZoom: () => {
          zoomed.current = true;
        },
      });
      options.hooks = { ...options.hooks, draw: [(u) => drawMarkers(u, markersRef.current)] };
      const plot = new UPlot(options, latest.current.data as uPlot.AlignedData, element);
      chart.current = plot;
      plot.over.addEventListener("dblclick", () => {
        zoomed.current = false;
      });
      // A click (not the end of a drag, which zooms) on a point opens its step.
      let downAt: number | null = null;
      plot.over.addEventListener("mousedown", (e) => {
        downAt = e.clientX;
      });
      plot.over.addEventListener("click", (e) => {
        const dragged = downAt !== null && Math.abs(e.clientX - downAt) > CLICK_SLOP_PX;
        const idx = plot.cursor.idx;
        const step = idx === null || idx === undefined ? undefined : latest.current.data[0][idx];
        if (!dragged && step !== undefined && step !== null) latest.current.onStepClick?.(step);
      });
      const fit = () => {
        const next = Math.max(element.clientWidth, 200);
        if (next !== plot.width) plot.setSize({ width: next, height });
      };
      if (typeof ResizeObserver === "undefined") {
        window.addEventListener("resize", fit);
        stopResizing = () => window.removeEventListener("resize", fit);
      } else {
        const observer = new ResizeObserver(fit);
        observer.observe(element);
        stopResizing = () => observer.disconnect();
      }
    }, () => setUnavailable(true));
    return () => {
      disposed = true;
      stopResizing();
      chart.current?.destroy();
      chart.current = null;
    };
  }, [shape, height, xLabel]);

  useEffect(() => {
    chart.current?.redraw(false);
  }, [markers]);

  useEffect(() => {
    // New points: keep the plot, swap its data; a zoomed-in view stays where the user put it.
    chart.current?.setData(drawn as uPlot.AlignedData, !zoomed.current);
  }, [drawn]);

  const xs = data[0];
  const hovered = cursorIdx !== null && cursorIdx < xs.length ? cursorIdx : null;
  const step = hovered !== null ? xs[hovered] : xs[xs.length - 1];

  return (
    <figure className="chart ts-chart" data-points={points} data-series={series.length} data-markers={markers.length}>
      <figcaption className="chart-title" id={titleId} title={description}>
        {title}
      </figcaption>
      <div className="ts-chart-area">
        <div
          ref={plotRef}
          className={`ts-chart-plot${onStepClick ? " ts-chart-clickable" : ""}`}
          style={{ height }}
          role="img"
          aria-labelledby={titleId}
          aria-describedby={descId}
        />
        {(points === 0 || unavailable) && (
          <div className="ts-chart-empty">{points === 0 ? emptyText : "This browser cannot draw the chart."}</div>
        )}
      </div>
      <div className="ts-chart-legend" aria-live="off">
        <div className="ts-chart-step">
          {xLabel} {step ?? "—"}
          {hovered === null && points > 0 && <span className="subtle"> (latest)</span>}
          {onStepClick && step !== undefined && (
            <button type="button" className="btn btn-ghost btn-sm ts-chart-step-action" onClick={() => onStepClick(step)}>
              {stepActionLabel} {step}
            </button>
          )}
        </div>
        <ul className="chart-legend">
          {series.map((s, i) => {
            const column = data[i + 1];
            const value = hovered !== null ? column?.[hovered] : lastValue(column);
            return (
              <li key={s.key} data-series-key={s.key} title={s.description}>
                <span
                  className={`chart-legend-mark chart-legend-line${s.dashed ? " chart-legend-dashed" : ""}`}
                  style={{ background: s.color, borderColor: s.color }}
                  aria-hidden="true"
                />
                {s.label}
                <span className="ts-chart-value">{formatValue(value)}</span>
              </li>
            );
          })}
        </ul>
        <MarkerList markers={markers} />
        <p className="ts-chart-description" id={descId}>
          {description}
        </p>
      </div>
    </figure>
  );
}
