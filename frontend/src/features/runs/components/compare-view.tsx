import { memo, useMemo, useState } from "react";
import { Link } from "react-router";

import { seriesColor } from "@/components/charts/palette";
import { DEFAULT_SMOOTHING, SmoothingControl } from "@/components/charts/smoothing-control";
import { TimeSeriesChart, formatValue, type ChartSeries } from "@/components/charts/time-series-chart";
import { RunStateBadge } from "@/components/run-status/run-state-badge";
import { Card } from "@/components/ui/card";
import { useDescribeMetric } from "@/lib/metric-descriptions";

import type { Comparison } from "../api/types";
import type { RunMetrics } from "../lib/metric-series";
import { groupPanels, SECTIONS } from "../lib/panels";

export type ComparedRun = Comparison["runs"][number];

export function runName(run: ComparedRun): string {
  return `${run.experiment_name} #${run.number}`;
}

export function RunLegend({ runs }: { runs: ComparedRun[] }) {
  return (
    <ul className="rn-compare-legend" aria-label="Compared runs">
      {runs.map((run, i) => (
        <li key={run.id}>
          <span className="rn-compare-swatch" style={{ background: seriesColor(i) }} aria-hidden="true" />
          <Link to={`/runs/${run.id}`}>{runName(run)}</Link>
          <RunStateBadge state={run.state} />
          <span className="subtle">
            step {run.step} / {run.max_steps}
          </span>
        </li>
      ))}
    </ul>
  );
}

type OverlayProps = { metric: string; runs: ComparedRun[]; metrics: (RunMetrics | undefined)[]; smoothing: number };

function OverlayChartView({ metric, runs, metrics, smoothing }: OverlayProps) {
  const describeMetric = useDescribeMetric();
  const series: ChartSeries[] = useMemo(
    () =>
      runs.map((run, i) => {
        const s = metrics[i]?.series[metric];
        return { key: String(run.id), label: runName(run), color: seriesColor(i), x: s?.x ?? [], y: s?.y ?? [] };
      }),
    [metric, runs, metrics],
  );
  return (
    <div className="card rn-chart-card" data-metric={metric}>
      <TimeSeriesChart title={metric} description={describeMetric(metric)} series={series} smoothing={smoothing} />
    </div>
  );
}

const OverlayChart = memo(
  OverlayChartView,
  (a: OverlayProps, b: OverlayProps) =>
    a.metric === b.metric &&
    a.runs === b.runs &&
    a.smoothing === b.smoothing &&
    a.metrics.every((m, i) => m?.series[a.metric] === b.metrics[i]?.series[a.metric]),
);

/** One chart per metric, each run a line in its own colour; metrics grouped as on a run's page. */
export function OverlayCharts({ runs, metrics }: { runs: ComparedRun[]; metrics: (RunMetrics | undefined)[] }) {
  const keyList = [...new Set(metrics.flatMap((m) => Object.keys(m?.series ?? {})))].sort().join("\n");
  const describeMetric = useDescribeMetric();
  const panels = useMemo(() => groupPanels(keyList ? keyList.split("\n") : [], describeMetric), [keyList, describeMetric]);
  const [smoothing, setSmoothing] = useState(DEFAULT_SMOOTHING);
  return (
    <div className="stack">
      <div className="rn-compare-tools">
        <SmoothingControl value={smoothing} onChange={setSmoothing} />
      </div>
      {SECTIONS.map((section) => {
        const keys = panels.filter((p) => p.section === section).flatMap((p) => p.keys);
        if (keys.length === 0) return null;
        return (
          <section key={section} aria-label={section} className="rn-section">
            <h2 className="rn-section-title">{section}</h2>
            <div className="rn-chart-grid">
              {keys.map((key) => (
                <OverlayChart key={key} metric={key} runs={runs} metrics={metrics} smoothing={smoothing} />
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
}

/** A metric rounded for reading; a configuration value (`exact`) as it was set. */
function Value({ value, exact = false }: { value: unknown; exact?: boolean }) {
  if (value === null || value === undefined) return <span className="subtle">—</span>;
  if (typeof value === "number") return <span className="mono">{exact ? String(value) : formatValue(value)}</span>;
  return <span className="mono">{typeof value === "string" ? value : JSON.stringify(value)}</span>;
}

export function FinalMetricsTable({ comparison }: { comparison: Comparison }) {
  const describeMetric = useDescribeMetric();
  return (
    <Card title="Final metrics" description="The last value each run reported for every metric.">
      <div className="table-wrap">
        <table className="table" aria-label="Final metrics">
          <thead>
            <tr>
              <th>Metric</th>
              {comparison.runs.map((run, i) => (
                <th key={run.id}>
                  <span className="rn-compare-swatch" style={{ background: seriesColor(i) }} aria-hidden="true" /> {runName(run)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {comparison.metrics.map((row) => (
              <tr key={row.key}>
                <td title={describeMetric(row.key)}>{row.key}</td>
                {row.values.map((v, i) => (
                  <td key={comparison.runs[i]?.id ?? i}>
                    <Value value={v} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

export function ConfigDifferencesTable({ comparison }: { comparison: Comparison }) {
  const rows = comparison.config_differences;
  return (
    <Card
      title="Configuration differences"
      description={rows.length === 0 ? "The runs share one configuration: they differ only by chance." : "Only the settings that differ between the runs' experiments."}
    >
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label="Configuration differences">
            <thead>
              <tr>
                <th>Setting</th>
                {comparison.runs.map((run) => (
                  <th key={run.id}>{runName(run)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.path}>
                  <td className="mono">{row.path}</td>
                  {row.values.map((v, i) => (
                    <td key={comparison.runs[i]?.id ?? i}>
                      <Value value={v} exact />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
