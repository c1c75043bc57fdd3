import { useState, type FormEvent } from "react";

import type { Learner, PreviewTrace } from "../api/types";

import { FamilyTraceCharts } from "./preview-charts";

export type SimulationSettings = { steps: number; batch: number; seed: number; learner: Learner };

const FIELDS: { key: string; label: string; step: number | "any"; min: number; hint: string }[] = [
  { key: "steps", label: "Steps", step: 1, min: 1, hint: "Training steps" },
  { key: "batch", label: "Batch", step: 1, min: 1, hint: "Tasks per step" },
  { key: "seed", label: "Seed", step: 1, min: 0, hint: "" },
  { key: "ability", label: "Learner ability", step: 0.1, min: 0, hint: "Level it solves half the time" },
  { key: "slope", label: "Slope", step: 0.1, min: 0, hint: "How sharply success drops" },
  { key: "learning_rate", label: "Learning rate", step: "any", min: 0, hint: "Ability gained per success" },
];

/**
 * Runs the curriculum against a simulated learner and plots what it would do: the
 * distribution shifting up the levels and the rolling success held in the band.
 */
export function PreviewPanel({
  onRun,
  pending,
  messages,
  trace,
  stale,
}: {
  onRun: (settings: SimulationSettings) => void;
  pending: boolean;
  /** Errors not shown next to a field of the curriculum. */
  messages: string[];
  trace: PreviewTrace | undefined;
  stale: boolean;
}) {
  const [values, setValues] = useState<Record<string, string>>({
    steps: "300",
    batch: "32",
    seed: "0",
    ability: "1",
    slope: "2",
    learning_rate: "0.001",
  });

  function run(event: FormEvent) {
    event.preventDefault();
    const n = (key: string) => Number(values[key]);
    onRun({
      steps: n("steps"),
      batch: n("batch"),
      seed: n("seed"),
      learner: { ability: n("ability"), slope: n("slope"), learning_rate: n("learning_rate") },
    });
  }

  const families = trace ? Object.keys(trace.levels) : [];
  return (
    <div className="stack">
      <form className="form-row" onSubmit={run} aria-label="Simulation" style={{ alignItems: "flex-start" }}>
        {FIELDS.map((f) => (
          <div className="field cu-field" key={f.key} style={{ flex: "0 0 118px" }}>
            <label htmlFor={`sim-${f.key}`}>{f.label}</label>
            <input
              id={`sim-${f.key}`}
              className="input"
              type="number"
              min={f.min}
              step={f.step}
              value={values[f.key]}
              onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
            />
            {f.hint && <span className="field-hint">{f.hint}</span>}
          </div>
        ))}
        <button type="submit" className="btn btn-primary" style={{ marginTop: 20 }} disabled={pending}>
          {pending ? "Simulating…" : "Run preview"}
        </button>
      </form>
      {messages.length > 0 && (
        <div className="alert alert-error" role="alert">
          {messages.map((m) => (
            <div key={m}>{m}</div>
          ))}
        </div>
      )}
      {trace && stale && <div className="alert alert-warning">The curriculum changed since this preview; run it again.</div>}
      {trace && families.length === 0 && <p className="subtle">The trace has no families.</p>}
      {trace && families.map((family) => <FamilyTraceCharts key={family} trace={trace} family={family} />)}
      {!trace && !pending && (
        <p className="subtle">
          Run the preview to see how the sampling distribution would move across levels and whether the rolling
          success rate stays in the target band.
        </p>
      )}
    </div>
  );
}
