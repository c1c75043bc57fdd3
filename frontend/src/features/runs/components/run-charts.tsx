import { memo, useMemo, useState } from "react";

import { seriesColor } from "@/components/charts/palette";
import { DEFAULT_SMOOTHING, SmoothingControl } from "@/components/charts/smoothing-control";
import { TimeSeriesChart, formatValue, type ChartSeries } from "@/components/charts/time-series-chart";
import { EmptyState } from "@/components/ui/empty-state";
import { useDescribeMetric } from "@/lib/metric-descriptions";
import { Spinner } from "@/components/ui/spinner";

import type { StreamStatus } from "../api/run-stream";
import { latest, type RunMetrics } from "../lib/metric-series";
import { groupPanels, SECTIONS, seriesLabel, type Panel } from "../lib/panels";

const HEADLINE = [
  { key: "reward/mean", label: "Reward" },
  { key: "success", label: "Success" },
  { key: "kl", label: "KL" },
  { key: "perf/tokens_per_s", label: "Tokens / s" },
];

const STREAM_TEXT: Record<StreamStatus, string> = {
  live: "Live",
  paused: "Paused while this tab is hidden",
  connecting: "Connecting…",
  unavailable: "Refreshing every 2 s",
  closed: "Final",
};

export function StreamIndicator({ status, active }: { status: StreamStatus; active: boolean }) {
  const shown: StreamStatus = active ? status : "closed";
  const dot = shown === "live" ? "dot-live" : shown === "closed" ? "dot-offline" : "dot-connecting";
  return (
    <span className="rn-stream" data-stream={shown} title="How this page receives the run's metrics">
      <span className={`dot ${dot}`} aria-hidden="true" />
      {STREAM_TEXT[shown]}
    </span>
  );
}

type PanelProps = { panel: Panel; metrics: RunMetrics; smoothing: number; onStepClick?: (step: number) => void };

function PanelChartView({ panel, metrics, smoothing, onStepClick }: PanelProps) {
  const describeMetric = useDescribeMetric();
  const series: ChartSeries[] = useMemo(
    () =>
      panel.keys.map((key, i) => {
        const s = metrics.series[key];
        return { key, label: seriesLabel(key, panel), color: seriesColor(i), x: s?.x ?? [], y: s?.y ?? [], description: describeMetric(key) };
      }),
    [panel, metrics, describeMetric],
  );
  return (
    <div className="card rn-chart-card" data-panel={panel.id}>
      <TimeSeriesChart
        title={panel.title}
        description={panel.description}
        series={series}
        smoothing={smoothing}
        onStepClick={onStepClick}
        stepActionLabel="Rollouts of step"
      />
    </div>
  );
}

/** Redrawn only when one of its own series changed: a point for another metric leaves it be. */
const PanelChart = memo(
  PanelChartView,
  (a: PanelProps, b: PanelProps) =>
    a.panel === b.panel &&
    a.smoothing === b.smoothing &&
    a.onStepClick === b.onStepClick &&
    a.panel.keys.every((k) => a.metrics.series[k] === b.metrics.series[k]),
);

export function RunCharts({
  metrics,
  isPending,
  stream,
  active,
  onStepClick,
}: {
  metrics: RunMetrics | undefined;
  isPending: boolean;
  stream: StreamStatus;
  active: boolean;
  /** A click on a chart's point: the step under the cursor (the run page opens its rollouts). */
  onStepClick?: (step: number) => void;
}) {
  const keyList = Object.keys(metrics?.series ?? {}).join("\n");
  const describeMetric = useDescribeMetric();
  const panels = useMemo(() => groupPanels(keyList ? keyList.split("\n") : [], describeMetric), [keyList, describeMetric]);
  const keys = keyList ? keyList.split("\n") : [];
  const [smoothing, setSmoothing] = useState(DEFAULT_SMOOTHING);
  if (isPending) return <Spinner />;
  if (!metrics || keys.length === 0) {
    return (
      <EmptyState title={active ? "Waiting for the first step" : "No metrics were recorded"} icon="experiments">
        {active
          ? "Charts appear here as soon as the worker finishes the first training step; they update live."
          : "This run stopped before it finished a training step."}
      </EmptyState>
    );
  }
  return (
    <div className="stack">
      <div className="rn-headline">
        {HEADLINE.filter((h) => metrics.series[h.key]).map((h) => (
          <div key={h.key} className="rn-headline-item">
            <span className="rn-headline-label">{h.label}</span>
            <span className="rn-headline-value" data-testid={`headline-${h.key}`}>
              {formatValue(latest(metrics, h.key))}
            </span>
          </div>
        ))}
        <span className="rn-headline-spacer" />
        <SmoothingControl value={smoothing} onChange={setSmoothing} />
        <StreamIndicator status={stream} active={active} />
      </div>
      {SECTIONS.map((section) => {
        const inSection = panels.filter((p) => p.section === section);
        if (inSection.length === 0) return null;
        return (
          <section key={section} aria-label={section} className="rn-section">
            <h2 className="rn-section-title">{section}</h2>
            <div className="rn-chart-grid">
              {inSection.map((panel) => (
                <PanelChart key={panel.id} panel={panel} metrics={metrics} smoothing={smoothing} onStepClick={onStepClick} />
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
}
