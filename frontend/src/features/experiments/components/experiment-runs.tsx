import { Link } from "react-router";

import { formatValue } from "@/components/charts/time-series-chart";
import { ProgressBar } from "@/components/run-status/progress-bar";
import { RunStateBadge } from "@/components/run-status/run-state-badge";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useExperimentRuns } from "../api/get-experiment-runs";

export function ExperimentRuns({ experimentId, launchButton }: { experimentId: number; launchButton: React.ReactNode }) {
  const runs = useExperimentRuns(experimentId);
  const now = new Date();
  const ids = runs.data?.map((r) => r.id) ?? [];
  return (
    <Card
      title="Runs"
      description="Each launch is a run; open one for its live charts, logs, checkpoints and samples."
      actions={
        ids.length >= 2 ? (
          <Link className="btn btn-sm" to={`/runs/compare?ids=${ids.slice(0, 10).join(",")}`}>
            Compare these runs
          </Link>
        ) : undefined
      }
    >
      <QueryPlaceholder query={runs} />
      {runs.data?.length === 0 && (
        <div className="card-body">
          <EmptyState title="Not launched yet" icon="runs" action={launchButton}>
            Launching queues a run on a training worker; its page shows live charts as it trains.
          </EmptyState>
        </div>
      )}
      {runs.data && runs.data.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th>Run</th>
                <th>State</th>
                <th>Progress</th>
                <th>Reward</th>
                <th>Worker</th>
                <th>Started</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((run) => (
                <tr key={run.id}>
                  <td>
                    <Link to={`/runs/${run.id}`}>Run #{run.number}</Link>
                  </td>
                  <td>
                    <RunStateBadge state={run.state} cancelRequested={run.cancel_requested} />
                  </td>
                  <td style={{ minWidth: 180 }}>
                    <ProgressBar value={run.step} max={run.max_steps} label={`Run #${run.number} progress`} state={run.state} />
                  </td>
                  <td className="mono">{formatValue(run.summary["reward/mean"])}</td>
                  <td className="mono">{run.worker || <span className="subtle">—</span>}</td>
                  <td title={formatDateTime(run.started_at)}>{run.started_at ? formatRelative(run.started_at, now) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
