import { useId, useState } from "react";

import { isApiError } from "@/lib/api-client";
import { useCurrentTeam } from "@/lib/current-team";

import { usePreflight, useStartPreflight } from "../api/preflight";
import type { ExperimentConfigInput } from "../api/types";
import { PreflightProgress, PreflightReport } from "./preflight-report";

/** The pre-flight the wizard started, and the configuration it sampled. */
export type PreflightRun = { id: number; configKey: string };

const DEFAULT_TASKS_PER_LEVEL = "32";

function Problems({ error }: { error: unknown }) {
  if (!error) return null;
  const items = isApiError(error) ? error.errors : [{ field: null, message: error instanceof Error ? error.message : String(error) }];
  return (
    <div className="alert alert-error" role="alert">
      {items.map((item, i) => (
        <div key={i}>{item.field ? `${item.field}: ${item.message}` : item.message}</div>
      ))}
    </div>
  );
}

/**
 * The wizard's last check before launch: sample the chosen model on a slice of each family's
 * pool with the experiment's G and sampling settings, judged by the chosen verifiers, and
 * show per level what a run would learn from. It runs on a cpu worker; its progress arrives
 * live and its report is kept with the experiment created from this configuration.
 */
export function PreflightPanel({
  config,
  run,
  onStarted,
}: {
  config: ExperimentConfigInput;
  run: PreflightRun | null;
  onStarted: (run: PreflightRun) => void;
}) {
  const { team } = useCurrentTeam();
  const titleId = useId();
  const inputId = useId();
  const start = useStartPreflight();
  const [perLevel, setPerLevel] = useState(DEFAULT_TASKS_PER_LEVEL);
  const preflight = usePreflight(run?.id ?? null);
  const configKey = JSON.stringify(config);
  const stale = run !== null && run.configKey !== configKey;
  const current = preflight.data;
  const busy = start.isPending || current?.state === "queued" || current?.state === "running";

  const submit = () => {
    start.mutate(
      { team: team?.slug, config, tasks_per_level: Number(perLevel) || Number(DEFAULT_TASKS_PER_LEVEL) },
      { onSuccess: (created) => onStarted({ id: created.id, configKey }) },
    );
  };

  return (
    <section className="ex-preflight" aria-labelledby={titleId}>
      <div className="ex-preflight-head">
        <div>
          <h3 id={titleId}>Pre-flight</h3>
          <p className="subtle">
            Before spending GPU time: sample the model on a slice of each family&apos;s train split, G completions per task, judged by the chosen
            verifiers, and see per difficulty level how often it passes and how many groups would teach nothing.
          </p>
        </div>
        <div className="ex-preflight-controls">
          <label htmlFor={inputId} className="subtle">
            Tasks per level
          </label>
          <input
            id={inputId}
            className="input ex-preflight-count"
            inputMode="numeric"
            value={perLevel}
            onChange={(e) => setPerLevel(e.target.value.replace(/\D/g, ""))}
          />
          <button type="button" className="btn" disabled={busy} onClick={submit}>
            {busy ? "Pre-flight running…" : current ? "Run pre-flight again" : "Run pre-flight"}
          </button>
        </div>
      </div>
      <Problems error={start.error} />
      {stale && (
        <div className="alert alert-warning" role="status">
          The configuration changed since this pre-flight: run it again to see the one you will launch.
        </div>
      )}
      {current && current.state !== "succeeded" && <PreflightProgress preflight={current} />}
      {current?.result && <PreflightReport result={current.result} />}
    </section>
  );
}
