import { useQueryClient } from "@tanstack/react-query";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";

import { preflightQueryKey, useLatestPreflight, useStartPreflight } from "../api/preflight";
import { PreflightProgress, PreflightReport } from "./preflight-report";

/** The experiment's newest pre-flight (run from the wizard or here), live while it runs. */
export function ExperimentPreflight({ experimentId }: { experimentId: number }) {
  const latest = useLatestPreflight(experimentId);
  const start = useStartPreflight();
  const queryClient = useQueryClient();
  const preflight = latest.data;
  const busy = start.isPending || preflight?.state === "queued" || preflight?.state === "running";
  const run = () =>
    start.mutate(
      { experiment: experimentId, tasks_per_level: preflight?.tasks_per_level ?? 32 },
      { onSuccess: () => void queryClient.invalidateQueries({ queryKey: preflightQueryKey }) },
    );
  return (
    <Card
      title="Pre-flight"
      description="The model sampled on a slice of each family's pool with this configuration: per level, how often it passes and how many groups teach nothing."
      actions={
        <button type="button" className="btn" disabled={busy} onClick={run}>
          {busy ? "Pre-flight running…" : preflight ? "Run it again" : "Run pre-flight"}
        </button>
      }
    >
      <QueryPlaceholder query={latest} />
      <div className="card-body stack">
        <ErrorMessage error={start.error} />
        {latest.data === null && <p className="subtle">No pre-flight yet for this configuration.</p>}
        {preflight && preflight.state !== "succeeded" && <PreflightProgress preflight={preflight} />}
        {preflight?.result && <PreflightReport result={preflight.result} />}
      </div>
    </Card>
  );
}
