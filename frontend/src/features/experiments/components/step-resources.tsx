import type { Draft } from "../lib/draft";
import { WizardField } from "./wizard-field";

/** Step 5: the seed, the number of processes, how many completions each step keeps, and
 * the budget each run may use before it pauses itself. */
export function StepResources({ draft, errors, onChange }: { draft: Draft; errors: Record<string, string>; onChange: (draft: Draft) => void }) {
  return (
    <div className="stack">
      <div className="ex-grid">
        <WizardField label="Seed" help="Seeds sampling and initialisation; with the same seed a CPU run repeats exactly." error={errors["config.seed"]}>
          {(control) => <input {...control} className="input" inputMode="numeric" value={draft.seed} onChange={(e) => onChange({ ...draft, seed: e.target.value })} />}
        </WizardField>
        <WizardField
          label="Processes"
          help="More than one starts the run under accelerate launch (one process per device); prompts per step must divide evenly between them."
          error={errors["config.num_processes"]}
        >
          {(control) => <input {...control} className="input" inputMode="numeric" value={draft.processes} onChange={(e) => onChange({ ...draft, processes: e.target.value })} />}
        </WizardField>
        <WizardField
          label="Completion groups kept per step"
          help="Groups of completions stored with their verdicts for the run's Samples tab (0 keeps none)."
          error={errors["config.rollout_groups"]}
        >
          {(control) => (
            <input {...control} className="input" inputMode="numeric" value={draft.rolloutGroups} onChange={(e) => onChange({ ...draft, rolloutGroups: e.target.value })} />
          )}
        </WizardField>
      </div>
      <div className="ex-grid" role="group" aria-label="Budget of each run">
        <WizardField
          label="Budget: worker-hours"
          help="Hours of workers each run may use (times its processes), loading included. A run that crosses it pauses with a checkpoint and says why; raise it to resume. Blank: no limit."
          error={errors["config.budget.max_worker_hours"]}
        >
          {(control) => (
            <input {...control} className="input" inputMode="decimal" placeholder="no limit" value={draft.maxWorkerHours} onChange={(e) => onChange({ ...draft, maxWorkerHours: e.target.value })} />
          )}
        </WizardField>
        <WizardField
          label="Budget: cost"
          help="Cost each run may reach at the queues' rates (set by an admin); a run that crosses it pauses. Blank: no limit."
          error={errors["config.budget.max_cost"]}
        >
          {(control) => <input {...control} className="input" inputMode="decimal" placeholder="no limit" value={draft.maxCost} onChange={(e) => onChange({ ...draft, maxCost: e.target.value })} />}
        </WizardField>
      </div>
    </div>
  );
}
