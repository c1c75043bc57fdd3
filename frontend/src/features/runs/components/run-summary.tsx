import { Link } from "react-router";

import { ProgressBar } from "@/components/run-status/progress-bar";
import { RunStateBadge } from "@/components/run-status/run-state-badge";
import { formatDateTime, formatDuration, secondsSince } from "@/lib/format";
import { formatCost, formatHours } from "@/lib/usage-format";

import { isActive, type Run } from "../api/types";

/** A heartbeat older than this on a running run means its worker may have died (it is then queued again). */
const STALE_HEARTBEAT_S = 60;

function Stat({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="rn-stat" data-testid={testId}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Heartbeat({ run, now }: { run: Run; now: Date }) {
  const age = secondsSince(run.heartbeat_at, now);
  if (age === null) return <span className="subtle">none yet</span>;
  const stale = run.state === "running" && age > STALE_HEARTBEAT_S;
  return (
    <span className={stale ? "rn-stale" : undefined} title={formatDateTime(run.heartbeat_at)}>
      {formatDuration(age)} ago{stale && " — the worker may have stopped; the run will be queued again"}
    </span>
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
        <Stat label="Worker">{run.worker ? <span className="mono">{run.worker}</span> : <span className="subtle">{isActive(run) ? "waiting for one" : "—"}</span>}</Stat>
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
          <Link to={`/experiments/${run.experiment}`}>{run.experiment_name}</Link>
        </Stat>
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
