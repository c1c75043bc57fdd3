import { useCallback, useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { isApiError } from "@/lib/api-client";

import { useCancelRun } from "../api/cancel-run";
import { useRun } from "../api/get-run";
import { useRunMetrics } from "../api/get-run-metrics";
import { isActive, type Run } from "../api/types";
import { RunCharts } from "../components/run-charts";
import { RunCheckpoints } from "../components/run-checkpoints";
import { RunLogs } from "../components/run-logs";
import { RolloutInspector } from "../components/rollout-inspector";
import { PauseNotice, PauseResumeButton } from "../components/run-control";
import { RunHealth } from "../components/run-health";
import { RunControlPanel, RunMarkers } from "../components/run-control-panel";
import { FailureNotice, LostWorkerNotice, RunSummary } from "../components/run-summary";
import "../runs.css";

const TABS = [
  { path: "", label: "Charts" },
  { path: "logs", label: "Logs" },
  { path: "checkpoints", label: "Checkpoints" },
  { path: "control", label: "Control" },
  { path: "rollouts", label: "Rollouts" },
] as const;

type Tab = (typeof TABS)[number]["path"];

function isTab(value: string | undefined): value is Tab {
  return TABS.some((t) => t.path === value);
}

/** Ticks every second while the run is active, so ages ("heartbeat 4 s ago") stay true. */
function useNow(active: boolean): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(new Date()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

function CancelButton({ run }: { run: Run }) {
  const cancel = useCancelRun(run.id);
  const [asking, setAsking] = useState(false);
  if ((!isActive(run) && run.state !== "paused") || run.cancel_requested) return null;
  return (
    <>
      <button type="button" className="btn" onClick={() => setAsking(true)}>
        Cancel run
      </button>
      {asking && (
        <ConfirmDialog
          title={`Cancel run #${run.number}?`}
          confirmLabel={cancel.isPending ? "Cancelling…" : "Cancel run"}
          pending={cancel.isPending}
          error={cancel.error}
          onCancel={() => setAsking(false)}
          onConfirm={() => cancel.mutate(undefined, { onSuccess: () => setAsking(false) })}
        >
          {run.state === "queued" || run.state === "paused"
            ? `It is ${run.state === "queued" ? "not started" : "paused"}: it is cancelled at once.`
            : "It stops at the end of the current training step; its metrics and checkpoints stay."}
        </ConfirmDialog>
      )}
    </>
  );
}

/** Who started the run and where it stands; an outside run's trainer started it elsewhere. */
function runDescription(run: Run, active: boolean): string {
  const by = run.created_by || "someone";
  const started = run.source === "external" ? `Trained outside the platform, streamed in by ${by}` : `Launched by ${by}`;
  const now = active ? "training now, charts update live." : run.state === "paused" ? "paused: resume it to go on from its checkpoint." : `ended ${run.state}.`;
  return `${started}; ${now}`;
}

function RunPage({ run, tab }: { run: Run; tab: Tab }) {
  const active = isActive(run);
  const now = useNow(active);
  const metrics = useRunMetrics(run.id, active);
  const navigate = useNavigate();
  // Stable, so the charts (memoised per panel) are not redrawn on every render of the page.
  const openStep = useCallback((step: number) => navigate(`/runs/${run.id}/rollouts?step=${step}`), [navigate, run.id]);

  return (
    <RunMarkers runId={run.id} active={active}>
      <div className="subtle" style={{ marginBottom: 4 }}>
        <Link to="/runs">Runs</Link> /{" "}
        {run.experiment !== null && (
          <>
            <Link to={`/experiments/${run.experiment}`}>{run.experiment_name}</Link> /
          </>
        )}
      </div>
      <PageHeader
        title={`${run.title} · run #${run.number}`}
        description={runDescription(run, active)}
        actions={
          <>
            <Link className="btn" to={`/runs?selected=${run.id}`}>
              Compare with other runs
            </Link>
            {run.source !== "external" && <PauseResumeButton run={run} />}
            <CancelButton run={run} />
          </>
        }
      />
      <div className="stack">
        <RunSummary run={run} now={now} />
        <LostWorkerNotice run={run} now={now} />
        {run.cancel_requested && active && (
          <div className="alert alert-warning" role="status">
            Cancel requested: the run stops at the end of its current step.
          </div>
        )}
        <FailureNotice run={run} />
        <PauseNotice run={run} />
        <RunHealth run={run} />
        <nav className="rn-tabs" aria-label="Run sections">
          {TABS.map((t) => (
            <Link key={t.path} to={`/runs/${run.id}${t.path ? `/${t.path}` : ""}`} className="rn-tab" aria-current={t.path === tab ? "page" : undefined}>
              {t.label}
            </Link>
          ))}
        </nav>
        {tab === "" && (
          <RunCharts
            metrics={metrics.data}
            isPending={metrics.isPending}
            stream={metrics.stream}
            active={active}
            onStepClick={openStep}
          />
        )}
        {tab === "logs" && <RunLogs run={run} />}
        {tab === "checkpoints" && <RunCheckpoints run={run} />}
        {tab === "control" && <RunControlPanel run={run} />}
        {tab === "rollouts" && <RolloutInspector run={run} metricKeys={Object.keys(metrics.data?.series ?? {})} />}
      </div>
    </RunMarkers>
  );
}

export function RunRoute() {
  const params = useParams();
  const id = Number(params.runId);
  const tab: Tab = isTab(params.tab) ? params.tab : "";
  const run = useRun(id);
  if (!Number.isInteger(id) || id <= 0 || (isApiError(run.error) && run.error.status === 404)) {
    return (
      <EmptyState title="No such run" icon="runs" action={<Link className="btn" to="/runs">All runs</Link>}>
        It does not exist, or it belongs to a team you are not in.
      </EmptyState>
    );
  }
  if (!run.data) return <QueryPlaceholder query={run} />;
  return <RunPage run={run.data} tab={tab} />;
}
