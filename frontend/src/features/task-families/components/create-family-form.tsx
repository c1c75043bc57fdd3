import { useState, type FormEvent } from "react";

import { FormAlert } from "@/components/ui/form-field";

import type { Family, FamilyKind } from "../api/types";
import { useCreateFamily } from "../api/create-family";

import { draftOf, EnvironmentField, environmentValue, isEnvironmentField } from "./environment-field";
import { FieldError, InputField } from "./form-fields";
import { fieldErrors, otherErrors, paramErrors } from "./field-errors";
import { defaultParams, ParamsForm, type Params } from "./params-form";

const SHOWN = new Set(["name", "kind", "description", "held_out_fraction", "prompt_template"]);

/** The share of a version's tasks kept out of training, 0 to 0.9. */
export function HeldOutField({
  id,
  value,
  error,
  onChange,
}: {
  id: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  return (
    <InputField
      id={id}
      label="Held-out fraction"
      type="number"
      min={0}
      max={0.9}
      step={0.05}
      style={{ flex: "0 1 150px" }}
      value={value}
      error={error}
      onChange={onChange}
    />
  );
}

/** What a kind is, its difficulty scale and what it can be built from. */
export function KindSummary({ kind }: { kind: FamilyKind }) {
  return (
    <div className="kind-summary" aria-label={`About ${kind.label}`}>
      <p>{kind.description}</p>
      <div className="row" style={{ flexWrap: "wrap" }}>
        <span className="subtle">Difficulty</span>
        <span className="level-scale" aria-label={`Difficulty levels ${kind.difficulty_levels.join(", ")}`}>
          {kind.difficulty_levels.map((level) => (
            <span key={level} className="level-chip">
              {level}
            </span>
          ))}
        </span>
        {kind.procedural && <span className="badge badge-accent">Procedural generator</span>}
        {kind.importable && <span className="badge">Import from file</span>}
      </div>
    </div>
  );
}

export function CreateFamilyForm({
  kinds,
  team,
  onCreated,
  onCancel,
}: {
  kinds: FamilyKind[];
  team?: string;
  onCreated: (family: Family) => void;
  onCancel?: () => void;
}) {
  const [kindName, setKindName] = useState(kinds[0]?.name ?? "");
  const kind = kinds.find((k) => k.name === kindName);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [params, setParams] = useState<Params>(() => (kind ? defaultParams(kind.params_schema) : {}));
  const [heldOut, setHeldOut] = useState("0.1");
  const [template, setTemplate] = useState("");
  const [environment, setEnvironment] = useState(() => draftOf(null));
  const create = useCreateFamily(team);
  const errors = fieldErrors(create.error);
  const general = otherErrors(create.error, (f) => SHOWN.has(f) || f.startsWith("params") || isEnvironmentField(f));

  function chooseKind(next: string) {
    setKindName(next);
    const nextKind = kinds.find((k) => k.name === next);
    setParams(nextKind ? defaultParams(nextKind.params_schema) : {});
    setEnvironment(draftOf(null));
    create.reset();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(
      {
        name: name.trim(),
        kind: kindName,
        description: description.trim(),
        params,
        held_out_fraction: Number(heldOut),
        prompt_template: template,
        environment: environmentValue(environment),
      },
      { onSuccess: onCreated },
    );
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="New task family">
      <FormAlert messages={general} />
      <div className="form-row" style={{ alignItems: "flex-start" }}>
        <InputField
          id="family-name"
          label="Name"
          placeholder="Arithmetic warm-up"
          value={name}
          error={errors.name}
          onChange={setName}
        />
        <div className="field">
          <label htmlFor="family-kind">Kind</label>
          <select id="family-kind" className="select" value={kindName} onChange={(e) => chooseKind(e.target.value)}>
            {kinds.map((k) => (
              <option key={k.name} value={k.name}>
                {k.label}
              </option>
            ))}
          </select>
          <FieldError id="family-kind-error" message={errors.kind} />
        </div>
        <HeldOutField id="family-held-out" value={heldOut} error={errors.held_out_fraction} onChange={setHeldOut} />
      </div>
      {kind && <KindSummary kind={kind} />}
      <InputField
        id="family-description"
        label="Description"
        placeholder="What this family trains, in one line"
        value={description}
        error={errors.description}
        onChange={setDescription}
      />
      {kind && (
        <div className="subsection">
          <h3>Generator parameters</h3>
          <ParamsForm
            key={kind.name}
            schema={kind.params_schema}
            value={params}
            onChange={setParams}
            errors={paramErrors(errors)}
          />
        </div>
      )}
      {kind && <EnvironmentField familyKind={kind.name} value={environment} onChange={setEnvironment} errors={errors} idPrefix="family" />}
      <details className="subsection">
        <summary>Prompt template (optional)</summary>
        <InputField
          id="family-template"
          label="Template"
          multiline
          style={{ marginTop: "var(--space-2)" }}
          placeholder={kind?.prompt_template}
          value={template}
          error={errors.prompt_template}
          hint="Leave empty to use the kind’s template shown above in grey."
          onChange={setTemplate}
        />
      </details>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim() || !kindName}>
          {create.isPending ? "Creating…" : "Create family"}
        </button>
        {onCancel && (
          <button type="button" className="btn btn-ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
