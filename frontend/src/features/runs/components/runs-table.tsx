import { Link } from "react-router";

import { formatValue } from "@/components/charts/time-series-chart";
import { ProgressBar } from "@/components/run-status/progress-bar";
import { RunStateBadge } from "@/components/run-status/run-state-badge";
import { formatDateTime, formatRelative } from "@/lib/format";

import type { RunListItem } from "../api/types";
import { RunSourceBadge } from "./run-source-badge";

export function RunsTable({
  runs,
  selected,
  onToggle,
  now,
}: {
  runs: RunListItem[];
  selected: Set<number>;
  onToggle: (id: number) => void;
  now: Date;
}) {
  return (
    <div className="table-wrap">
      <table className="table rn-runs-table">
        <thead>
          <tr>
            <th>
              <span className="visually-hidden">Compare</span>
            </th>
            <th>Run</th>
            <th>State</th>
            <th>Progress</th>
            <th>Reward</th>
            <th>Worker</th>
            <th>Started</th>
            <th>Finished</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const name = `${run.title} #${run.number}`;
            return (
              <tr key={run.id} className={selected.has(run.id) ? "is-selected" : undefined}>
                <td className="rn-check">
                  <input type="checkbox" aria-label={`Select ${name}`} checked={selected.has(run.id)} onChange={() => onToggle(run.id)} />
                </td>
                <td>
                  <Link to={`/runs/${run.id}`}>{name}</Link> <RunSourceBadge source={run.source} />
                  <div className="subtle rn-cell-sub">
                    by {run.created_by || "—"}
                    {run.experiment !== null && (
                      <>
                        {" "}
                        · <Link to={`/experiments/${run.experiment}`} className="subtle">experiment</Link>
                      </>
                    )}
                  </div>
                </td>
                <td>
                  <RunStateBadge state={run.state} cancelRequested={run.cancel_requested} />
                </td>
                <td className="rn-progress-cell">
                  <ProgressBar value={run.step} max={run.max_steps} label={`${name} progress`} state={run.state} />
                </td>
                <td className="mono">{formatValue(run.summary["reward/mean"])}</td>
                <td className="mono rn-worker">{run.worker || <span className="subtle">{run.source === "external" ? "outside trainer" : "—"}</span>}</td>
                <td title={formatDateTime(run.started_at)}>{run.started_at ? formatRelative(run.started_at, now) : <span className="subtle">—</span>}</td>
                <td title={formatDateTime(run.finished_at)}>{run.finished_at ? formatRelative(run.finished_at, now) : <span className="subtle">—</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
