import { usePoolVersions } from "@/lib/pool-versions";

import { useCurricula } from "../api/get-curricula";
import { useSuites } from "../api/get-suites";
import type { Draft } from "../lib/draft";
import { WizardField } from "./wizard-field";

/** The pool versions the chosen curriculum trains on. */
export function curriculumVersions(draft: Draft, savedFamilies: (id: number) => number[]): number[] {
  const choice = draft.curriculum;
  if (choice.kind === "inline") return choice.config.families.map((f) => f.pool_version);
  return choice.saved === null ? [] : savedFamilies(choice.saved);
}

/** A saved evaluation suite instead of the sets below: its families (curriculum families judged
 * by the curriculum's verifiers), its max tasks, and an evaluation of the final checkpoint. */
function SuiteSelect({ draft, error, onChange }: { draft: Draft; error?: string; onChange: (draft: Draft) => void }) {
  const suites = useSuites();
  const chosen = suites.data?.find((s) => s.id === draft.evalSuite);
  const help = chosen
    ? `${chosen.families.map((f) => `${f.family} v${f.version_number}`).join(", ")}, at most ${chosen.max_tasks} tasks each; the final checkpoint is evaluated on it when a run succeeds.`
    : "Optional: evaluate a saved suite's families during training, and the final checkpoint on the suite.";
  return (
    <WizardField label="Evaluation suite" help={help} error={error}>
      {(control) => (
        <select
          {...control}
          className="select"
          value={draft.evalSuite ?? ""}
          onChange={(e) => onChange({ ...draft, evalSuite: e.target.value ? Number(e.target.value) : null })}
        >
          <option value="">None: choose held-out sets below</option>
          {draft.evalSuite !== null && !chosen && <option value={draft.evalSuite}>suite {draft.evalSuite}</option>}
          {suites.data?.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      )}
    </WizardField>
  );
}

/** Step 4: which held-out sets are evaluated, how often and how many tasks of each. */
export function StepEvaluation({ draft, errors, onChange }: { draft: Draft; errors: Record<string, string>; onChange: (draft: Draft) => void }) {
  const curricula = useCurricula();
  const versions = usePoolVersions();
  const ids = curriculumVersions(draft, (id) => curricula.data?.find((c) => c.id === id)?.config.families.map((f) => f.version) ?? []);
  const chosen = draft.evalFamilies ?? ids;
  const toggle = (id: number) => {
    const next = chosen.includes(id) ? chosen.filter((v) => v !== id) : [...chosen, id];
    onChange({ ...draft, evalFamilies: next.length === ids.length && ids.every((v) => next.includes(v)) ? null : next });
  };
  return (
    <div className="stack">
      <p className="ex-step-intro">
        Held-out tasks are never trained on: their pass rate says whether the model learned the skill or only the training reward.
      </p>
      <div className="ex-grid">
        <WizardField label="Evaluate every (steps)" help="0 evaluates only at the end of training." error={errors["config.eval.every"]}>
          {(control) => <input {...control} className="input" inputMode="numeric" value={draft.evalEvery} onChange={(e) => onChange({ ...draft, evalEvery: e.target.value })} />}
        </WizardField>
        <SuiteSelect draft={draft} error={errors["config.eval.suite"]} onChange={onChange} />
        {draft.evalSuite === null && (
          <WizardField label="Held-out tasks per family, at most" help="A sample of each held-out split, the same one every time." error={errors["config.eval.max_tasks"]}>
            {(control) => <input {...control} className="input" inputMode="numeric" value={draft.evalMaxTasks} onChange={(e) => onChange({ ...draft, evalMaxTasks: e.target.value })} />}
          </WizardField>
        )}
      </div>
      {draft.evalSuite === null && (
        <fieldset className="ex-fieldset" aria-describedby={errors["config.eval.families"] ? "eval-families-error" : undefined}>
          <legend>Held-out sets</legend>
          {ids.length === 0 && <span className="subtle">Choose a curriculum first.</span>}
          {ids.map((id) => {
            const version = versions.data?.find((v) => v.id === id);
            return (
              <label key={id} className="ex-check-row">
                <input type="checkbox" checked={chosen.includes(id)} onChange={() => toggle(id)} />
                {version ? `${version.family_slug} · v${version.number}` : `pool version ${id}`}
                <span className="subtle">{version ? `${version.held_out_count} held-out tasks` : ""}</span>
              </label>
            );
          })}
          {errors["config.eval.families"] && (
            <span className="field-error" id="eval-families-error">
              {errors["config.eval.families"]}
            </span>
          )}
        </fieldset>
      )}
    </div>
  );
}
