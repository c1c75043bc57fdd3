import { Link } from "react-router";

import { ProgressBar } from "@/components/run-status/progress-bar";
import { RunStateBadge } from "@/components/run-status/run-state-badge";
import { formatDateTime, formatDuration, secondsSince } from "@/lib/format";
import { formatCost, formatHours } from "@/lib/usage-format";

import { isActive, type Run } from "../api/types";
import { RunSourceBadge } from "./run-source-badge";

function Stat({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="rn-stat" data-testid={testId}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Seconds since a running run's last heartbeat when it is past the reaper's threshold
 * (`heartbeat_stale_after_s`); null while it is fresh or the run is not running. */
export function staleHeartbeatAge(run: Run, now: Date): number | null {
  // An outside run has no worker to lose: its trainer may be silent as long as it likes.
  if (run.state !== "running" || run.source === "external") return null;
  const age = secondsSince(run.heartbeat_at ?? run.started_at, now);
  return age !== null && age > run.heartbeat_stale_after_s ? age : null;
}

function Heartbeat({ run, now }: { run: Run; now: Date }) {
  const age = secondsSince(run.heartbeat_at, now);
  if (age === null) return <span className="subtle">none yet</span>;
  const stale = staleHeartbeatAge(run, now) !== null;
  return (
    <span className={stale ? "rn-stale" : undefined} title={formatDateTime(run.heartbeat_at)}>
      {formatDuration(age)} ago
    </span>
  );
}

/** A running run whose worker has gone silent: its charts are not frozen by a bug, its worker
 * is likely gone. A running worker's reaper queues it again; it resumes from its last checkpoint. */
export function LostWorkerNotice({ run, now }: { run: Run; now: Date }) {
  const age = staleHeartbeatAge(run, now);
  if (age === null) return null;
  return (
    <div className="alert alert-warning rn-lost-worker" role="alert">
      <strong>
        No heartbeat from {run.worker ? <span className="mono">{run.worker}</span> : "its worker"} for {formatDuration(age)}
      </strong>{" "}
      (a run silent for {formatDuration(run.heartbeat_stale_after_s)} is taken for lost). The worker may have stopped: the run is
      queued again by the next running worker and resumes from its last checkpoint. If no worker runs, start one.
    </div>
  );
}

function Elapsed({ run, now }: { run: Run; now: Date }) {
  if (!run.started_at) return <span className="subtle">not started</span>;
  const end = run.finished_at ? new Date(run.finished_at) : now;
  return <>{formatDuration((end.getTime() - new Date(run.started_at).getTime()) / 1000)}</>;
}

export function RunSummary({ run, now }: { run: Run; now: Date }) {
  return (
    <section className="card rn-summary" aria-label="Run status">
      <dl className="rn-stats">
        <Stat label="State">
          <RunStateBadge state={run.state} cancelRequested={run.cancel_requested} pauseRequested={run.pause_requested} />
        </Stat>
        <Stat label="Progress" testId="run-progress">
          <ProgressBar value={run.step} max={run.max_steps} label="Training progress" state={run.state} />
        </Stat>
        <Stat label="Worker">{run.worker ? <span className="mono">{run.worker}</span> : <span className="subtle">{run.source === "external" ? "outside trainer" : isActive(run) ? "waiting for one" : "—"}</span>}</Stat>
        <Stat label="Heartbeat">
          <Heartbeat run={run} now={now} />
        </Stat>
        <Stat label="Attempts">
          {run.attempts}
          {run.resumed_from_step !== null && <span className="subtle"> · resumed from step {run.resumed_from_step}</span>}
        </Stat>
        <Stat label="Used" testId="run-used">
          {formatHours(run.worker_seconds / 3600)}
          <span className="subtle"> · cost {formatCost(run.cost, "")}</span>
        </Stat>
        <Stat label="Started">{formatDateTime(run.started_at)}</Stat>
        <Stat label={run.finished_at ? "Finished" : "Elapsed"}>
          {run.finished_at ? formatDateTime(run.finished_at) : <Elapsed run={run} now={now} />}
        </Stat>
        <Stat label="Experiment">
          {run.experiment !== null ? <Link to={`/experiments/${run.experiment}`}>{run.experiment_name}</Link> : <span className="subtle">none</span>}
        </Stat>
        {run.source === "external" && (
          <Stat label="Source" testId="run-source">
            <RunSourceBadge source={run.source} />
            {run.base_model && <span className="subtle"> · from {run.base_model}</span>}
          </Stat>
        )}
      </dl>
    </section>
  );
}

/** Why a run failed and the last lines it logged, where the reader looks first. */
export function FailureNotice({ run }: { run: Run }) {
  if (run.state !== "failed") return null;
  return (
    <div className="alert alert-error rn-failure" role="alert">
      <strong>The run failed{run.step > 0 ? ` at step ${run.step}` : ""}.</strong>
      {run.failure_reason && <div className="rn-failure-reason">{run.failure_reason}</div>}
      {run.log_tail && (
        <>
          <div className="rn-failure-label">Last log lines</div>
          <pre className="rn-log rn-log-short">{lastLines(run.log_tail, 12)}</pre>
        </>
      )}
    </div>
  );
}

export function lastLines(text: string, count: number): string {
  const lines = text.replace(/\s+$/, "").split("\n");
  return lines.slice(-count).join("\n");
}
