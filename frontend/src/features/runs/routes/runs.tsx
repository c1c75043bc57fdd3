import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";

import { useRuns } from "../api/get-runs";
import { RunsTable } from "../components/runs-table";
import "../runs.css";

const STATES = ["", "running", "queued", "paused", "succeeded", "failed", "cancelled"] as const;
const STATE_LABELS: Record<string, string> = {
  "": "All",
  running: "Running",
  queued: "Queued",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
  paused: "Paused",
};

/** At most this many runs go side by side (the comparison endpoint's limit). */
export const MAX_COMPARED = 10;

function parseIds(text: string | null): number[] {
  return (text ?? "")
    .split(",")
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}

export function RunsRoute() {
  const { team } = useCurrentTeam();
  const [params, setParams] = useSearchParams();
  const state = params.get("state") ?? "";
  const experiment = Number(params.get("experiment")) || undefined;
  const runs = useRuns({ state: state || undefined, experiment });
  const [selected, setSelected] = useState(() => new Set(parseIds(params.get("selected"))));
  const navigate = useNavigate();
  const now = new Date();

  const toggle = (id: number) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const chosen = [...selected];
  const canCompare = chosen.length >= 2 && chosen.length <= MAX_COMPARED;
  const newExperiment = (
    <Link className="btn btn-primary" to="/experiments/new">
      <Icon name="plus" size={14} />
      New experiment
    </Link>
  );

  return (
    <>
      <PageHeader
        title="Runs"
        description="Every launch of an experiment: its state, progress and worker. Tick two or more to overlay their charts and compare final metrics and configurations."
        actions={newExperiment}
      />
      <Card
        title="Runs"
        description={runs.data ? `${runs.data.count} in ${team?.name ?? "your teams"}${experiment ? " for this experiment" : ""}` : undefined}
        actions={
          <button type="button" className="btn btn-primary" disabled={!canCompare} onClick={() => navigate(`/runs/compare?ids=${chosen.join(",")}`)}>
            Compare {chosen.length > 0 ? `${chosen.length} ` : ""}runs
          </button>
        }
      >
        <div className="rn-state-filter" role="group" aria-label="Filter by state">
          {STATES.map((s) => (
            <button
              key={s}
              type="button"
              className="rn-filter-chip"
              aria-pressed={state === s}
              onClick={() => {
                const next = new URLSearchParams(params);
                if (s) next.set("state", s);
                else next.delete("state");
                setParams(next, { replace: true });
              }}
            >
              {STATE_LABELS[s]}
            </button>
          ))}
          {experiment && (
            <Link className="rn-filter-chip" to="/runs">
              Showing one experiment’s runs · show all
            </Link>
          )}
          {chosen.length > MAX_COMPARED && <span className="field-error">Compare at most {MAX_COMPARED} runs at once.</span>}
        </div>
        <QueryPlaceholder query={runs} />
        {runs.data?.results.length === 0 && (
          <div className="card-body">
            <EmptyState title={state ? `No ${STATE_LABELS[state]?.toLowerCase()} runs` : "No runs yet"} icon="experiments" action={newExperiment}>
              A run is one launch of an experiment on a worker. Create an experiment and launch it to see its live charts here.
            </EmptyState>
          </div>
        )}
        {runs.data && runs.data.results.length > 0 && <RunsTable runs={runs.data.results} selected={selected} onToggle={toggle} now={now} />}
      </Card>
    </>
  );
}
