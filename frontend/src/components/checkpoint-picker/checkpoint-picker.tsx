// A checkpoint of the team, chosen by run and then by step (newest run first), instead of an id
// copied from a run's Checkpoints tab. Promoted checkpoints say so. A value given from outside
// (a link to "evaluate this checkpoint") shows as its id until another run is chosen.
import { useState } from "react";
import { Link } from "react-router";

import { useCurrentTeam } from "@/lib/current-team";
import { useRunCheckpoints, useTeamRuns, type CheckpointSummary } from "@/lib/checkpoints";

export type CheckpointPickerProps = {
  /** The chosen checkpoint's id, or "" for none. */
  value: string;
  onChange: (checkpoint: string) => void;
  /** Props for the checkpoint select (its id, aria-invalid, aria-describedby). */
  control?: { id?: string; "aria-invalid"?: true; "aria-describedby"?: string; disabled?: boolean };
  className?: string;
};

function checkpointLabel(checkpoint: CheckpointSummary): string {
  const promoted = checkpoint.promotion ? " · promoted" : "";
  return `step ${checkpoint.step} (${checkpoint.name})${promoted}`;
}

export function CheckpointPicker({ value, onChange, control, className }: CheckpointPickerProps) {
  const team = useCurrentTeam().team?.slug;
  const runs = useTeamRuns(team);
  const [run, setRun] = useState<number | null>(null);
  const checkpoints = useRunCheckpoints(run);
  const rows = runs.data?.results ?? [];
  const choices = [...(checkpoints.data ?? [])].sort((a, b) => b.step - a.step);
  const select = className ?? "select";
  return (
    <span className="row" style={{ gap: "var(--space-2)", flexWrap: "wrap" }}>
      <select
        aria-label="Run"
        className={select}
        value={run ?? ""}
        disabled={control?.disabled}
        onChange={(e) => {
          setRun(e.target.value ? Number(e.target.value) : null);
          onChange("");
        }}
      >
        <option value="">{runs.isPending ? "Loading runs…" : rows.length ? "Choose a run…" : "No runs yet"}</option>
        {rows.map((r) => (
          <option key={r.id} value={r.id}>
            {r.title || r.experiment_name} · run {r.number} ({r.state})
          </option>
        ))}
      </select>
      <select
        aria-label="Checkpoint"
        {...control}
        className={select}
        value={value}
        disabled={control?.disabled || (run === null && !value)}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">
          {run === null ? "Then a checkpoint…" : checkpoints.isPending ? "Loading…" : choices.length ? "Choose a checkpoint…" : "This run has no checkpoint"}
        </option>
        {value && !choices.some((c) => String(c.id) === value) && <option value={value}>checkpoint {value}</option>}
        {choices.map((c) => (
          <option key={c.id} value={c.id}>
            {checkpointLabel(c)}
          </option>
        ))}
      </select>
      {runs.isSuccess && rows.length === 0 && !value && (
        <span className="subtle">
          No run has checkpoints yet: <Link to="/experiments/new">launch an experiment</Link>.
        </span>
      )}
    </span>
  );
}
