import { useState, type FormEvent } from "react";

import type { Family, FamilyKind } from "../api/types";
import { useCreateFamily } from "../api/create-family";

import { fieldErrors, otherErrors } from "./field-errors";
import { defaultParams, ParamsForm, type Params } from "./params-form";

const SHOWN = new Set(["name", "kind", "description", "held_out_fraction", "prompt_template"]);

function FieldError({ message, id }: { message?: string; id: string }) {
  return message ? (
    <span className="field-error" id={id}>
      {message}
    </span>
  ) : null;
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
  const create = useCreateFamily(team);
  const errors = fieldErrors(create.error);
  const paramErrors = Object.fromEntries(
    Object.entries(errors)
      .filter(([field]) => field.startsWith("params"))
      .map(([field, message]) => [field.replace(/^params\.?/, "").split(/[.[]/)[0] || "params", message]),
  );
  const general = otherErrors(create.error, (f) => SHOWN.has(f) || f.startsWith("params"));

  function chooseKind(next: string) {
    setKindName(next);
    const nextKind = kinds.find((k) => k.name === next);
    setParams(nextKind ? defaultParams(nextKind.params_schema) : {});
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
      },
      { onSuccess: onCreated },
    );
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="New task family">
      {general.length > 0 && (
        <div className="alert alert-error" role="alert">
          {general.map((m) => (
            <div key={m}>{m}</div>
          ))}
        </div>
      )}
      <div className="form-row" style={{ alignItems: "flex-start" }}>
        <div className="field">
          <label htmlFor="family-name">Name</label>
          <input
            id="family-name"
            className="input"
            placeholder="Arithmetic warm-up"
            value={name}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? "family-name-error" : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          <FieldError id="family-name-error" message={errors.name} />
        </div>
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
        <div className="field" style={{ flex: "0 1 150px" }}>
          <label htmlFor="family-held-out">Held-out fraction</label>
          <input
            id="family-held-out"
            className="input"
            type="number"
            min={0}
            max={0.9}
            step={0.05}
            value={heldOut}
            aria-invalid={errors.held_out_fraction ? true : undefined}
            onChange={(e) => setHeldOut(e.target.value)}
          />
          <FieldError id="family-held-out-error" message={errors.held_out_fraction} />
        </div>
      </div>
      {kind && <KindSummary kind={kind} />}
      <div className="field">
        <label htmlFor="family-description">Description</label>
        <input
          id="family-description"
          className="input"
          placeholder="What this family trains, in one line"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        <FieldError id="family-description-error" message={errors.description} />
      </div>
      {kind && (
        <div className="subsection">
          <h3>Generator parameters</h3>
          <ParamsForm
            key={kind.name}
            schema={kind.params_schema}
            value={params}
            onChange={setParams}
            errors={paramErrors}
          />
        </div>
      )}
      <details className="subsection">
        <summary>Prompt template (optional)</summary>
        <div className="field" style={{ marginTop: "var(--space-2)" }}>
          <label htmlFor="family-template">Template</label>
          <textarea
            id="family-template"
            className="input tf-textarea mono"
            rows={4}
            placeholder={kind?.prompt_template}
            value={template}
            onChange={(e) => setTemplate(e.target.value)}
          />
          <span className="field-hint">Leave empty to use the kind’s template shown above in grey.</span>
          <FieldError id="family-template-error" message={errors.prompt_template} />
        </div>
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
