import { useState, type FormEvent } from "react";

import { FormAlert, FormField } from "@/components/ui/form-field";

import type { EvaluationSuite, PoolVersion, SuiteInput, SuitePatch, Verifier } from "../api/types";

import { FamilyRows } from "./family-rows";
import { familiesChosen, shownFamilyOrSetting, stateFromSuite, suiteBody, type SuiteState } from "./form-state";
import { SettingsFields } from "./settings-fields";

/** The paths this form shows an error under; the editor lists the rest above it. */
export const shownSuiteField = (path: string) => path === "name" || path === "description" || shownFamilyOrSetting(path);

/** A suite's name, description, families and settings. A suite in use keeps its families and
 * settings (the server refuses to change them), so only its name and description are open. */
export function SuiteForm({
  suite,
  versions,
  verifiers,
  pending,
  errorFor,
  messages,
  onSubmit,
}: {
  suite: EvaluationSuite | null;
  versions: PoolVersion[];
  verifiers: Verifier[];
  pending: boolean;
  errorFor: (path: string) => string | undefined;
  /** Problems with no field of this form (a 409, a network failure). */
  messages: string[];
  onSubmit: (input: SuiteInput | SuitePatch) => void;
}) {
  const [state, setState] = useState<SuiteState>(() => stateFromSuite(suite));
  const frozen = Boolean(suite && (suite.jobs > 0 || suite.experiments > 0));
  const set = (patch: Partial<SuiteState>) => setState((s) => ({ ...s, ...patch }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = suiteBody(state);
    onSubmit(frozen ? { name: body.name, description: body.description } : body);
  }

  return (
    <form className="card-body stack" onSubmit={submit} aria-label="Evaluation suite" noValidate>
      <FormAlert messages={messages} />
      <div className="form-row" style={{ alignItems: "flex-start" }}>
        <FormField className="es-field es-name" label="Name" error={errorFor("name")}>
          {(control) => <input {...control} className="input" value={state.name} placeholder="Held-out core" onChange={(e) => set({ name: e.target.value })} />}
        </FormField>
        <FormField className="es-field" label="Description" error={errorFor("description")}>
          {(control) => <input {...control} className="input" value={state.description} onChange={(e) => set({ description: e.target.value })} />}
        </FormField>
      </div>
      {frozen && (
        <p className="subtle" role="note">
          Evaluations or experiments use this suite, so its families and settings stay as they are; save a new suite to change them.
        </p>
      )}
      <h3 className="es-heading">Families</h3>
      <FamilyRows rows={state.families} versions={versions} verifiers={verifiers} errorFor={errorFor} disabled={frozen} onChange={(families) => set({ families })} />
      <h3 className="es-heading">Settings</h3>
      <SettingsFields settings={state.settings} errorFor={errorFor} disabled={frozen} onChange={(settings) => set({ settings })} />
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={pending || !state.name.trim() || (!frozen && !familiesChosen(state.families))}>
          {pending ? "Saving…" : suite ? "Save changes" : "Create suite"}
        </button>
      </div>
    </form>
  );
}
