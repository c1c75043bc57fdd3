import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import { Link, useSearchParams } from "react-router";

import { QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

import { useCompareRuns } from "../api/compare-runs";
import { runMetricsQueryOptions } from "../api/get-run-metrics";
import { ConfigDifferencesTable, FinalMetricsTable, OverlayCharts, RunLegend } from "../components/compare-view";
import "../runs.css";

function parseIds(text: string | null): number[] {
  const ids = (text ?? "")
    .split(",")
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  return [...new Set(ids)];
}

export function CompareRunsRoute() {
  const [params] = useSearchParams();
  const ids = useMemo(() => parseIds(params.get("ids")), [params]);
  const comparison = useCompareRuns(ids);
  const metrics = useQueries({ queries: ids.map((id) => runMetricsQueryOptions(id)) });
  // A new array each render is fine: each chart redraws only when its own series changed.
  const metricData = metrics.map((m) => m.data);

  if (ids.length < 2) {
    return (
      <>
        <PageHeader title="Compare runs" />
        <EmptyState title="Pick two runs or more" icon="experiments" action={<Link className="btn btn-primary" to="/runs">Choose runs</Link>}>
          Tick the runs to compare in the runs list; their charts are overlaid here with their final metrics and configuration differences.
        </EmptyState>
      </>
    );
  }

  return (
    <>
      <div className="subtle" style={{ marginBottom: 4 }}>
        <Link to="/runs">Runs</Link> /
      </div>
      <PageHeader
        title={`Compare ${ids.length} runs`}
        description="Each metric's chart overlays the runs, one colour per run; below, their final metrics and where their configurations differ."
        actions={
          <Link className="btn" to={`/runs?selected=${ids.join(",")}`}>
            Change selection
          </Link>
        }
      />
      <QueryPlaceholder query={comparison} />
      {comparison.data && (
        <div className="stack">
          <RunLegend runs={comparison.data.runs} />
          <OverlayCharts runs={comparison.data.runs} metrics={metricData} />
          <FinalMetricsTable comparison={comparison.data} />
          <ConfigDifferencesTable comparison={comparison.data} />
        </div>
      )}
    </>
  );
}
