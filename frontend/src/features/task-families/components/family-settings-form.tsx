import { useState, type FormEvent } from "react";

import { FormAlert } from "@/components/ui/form-field";

import { useUpdateFamily, type UpdateFamilyInput } from "../api/update-family";
import type { Family, FamilyKind } from "../api/types";

import { HeldOutField, KindSummary } from "./create-family-form";
import { draftOf, EnvironmentField, environmentValue, isEnvironmentField } from "./environment-field";
import { fieldErrors, otherErrors, paramErrors } from "./field-errors";
import { InputField } from "./form-fields";
import { defaultParams, ParamsForm, type Params } from "./params-form";

const SHOWN = new Set(["name", "kind", "description", "held_out_fraction", "prompt_template"]);

function savedParams(family: Family, kind?: FamilyKind): Params {
  const stored = family.params && typeof family.params === "object" ? (family.params as Params) : {};
  return { ...(kind ? defaultParams(kind.params_schema) : {}), ...stored };
}

/**
 * Edits a family's name, description, held-out fraction, prompt template, generator
 * parameters and the environment it is played as; PATCH sends only what changed. The kind is fixed once a family exists.
 * Frozen versions keep the settings they were made with.
 */
export function FamilySettingsForm({
  family,
  kind,
  onSaved,
  onCancel,
}: {
  family: Family;
  kind?: FamilyKind;
  onSaved: (family: Family) => void;
  onCancel: () => void;
}) {
  const initialParams = savedParams(family, kind);
  const [name, setName] = useState(family.name);
  const [description, setDescription] = useState(family.description ?? "");
  const [heldOut, setHeldOut] = useState(String(family.held_out_fraction ?? 0));
  const [template, setTemplate] = useState(family.prompt_template ?? "");
  const [params, setParams] = useState<Params>(initialParams);
  const [environment, setEnvironment] = useState(() => draftOf(family.environment));
  const update = useUpdateFamily(family.id);
  const errors = fieldErrors(update.error);
  const general = otherErrors(update.error, (f) => SHOWN.has(f) || f.startsWith("params") || isEnvironmentField(f));

  const changes: UpdateFamilyInput = {};
  if (name.trim() !== family.name) changes.name = name.trim();
  if (description.trim() !== (family.description ?? "")) changes.description = description.trim();
  if (Number(heldOut) !== (family.held_out_fraction ?? 0)) changes.held_out_fraction = Number(heldOut);
  if (template !== (family.prompt_template ?? "")) changes.prompt_template = template;
  if (JSON.stringify(params) !== JSON.stringify(initialParams)) changes.params = params;
  const environmentNow = environmentValue(environment);
  if (JSON.stringify(environmentNow) !== JSON.stringify(family.environment ?? null)) changes.environment = environmentNow;
  const changed = Object.keys(changes).length > 0;

  function submit(event: FormEvent) {
    event.preventDefault();
    update.mutate(changes, { onSuccess: onSaved });
  }

  return (
    <form className="card-body stack" onSubmit={submit} aria-label="Family settings">
      <FormAlert messages={general} />
      <div className="form-row" style={{ alignItems: "flex-start" }}>
        <InputField id="settings-name" label="Name" value={name} error={errors.name} onChange={setName} />
        <InputField
          id="settings-kind"
          label="Kind"
          className="input tf-readonly"
          readOnly
          disabled
          value={kind?.label ?? family.kind}
          error={errors.kind}
          hint="The kind of a family cannot change."
          onChange={() => undefined}
        />
        <HeldOutField id="settings-held-out" value={heldOut} error={errors.held_out_fraction} onChange={setHeldOut} />
      </div>
      {kind && <KindSummary kind={kind} />}
      <InputField
        id="settings-description"
        label="Description"
        placeholder="What this family trains, in one line"
        value={description}
        error={errors.description}
        onChange={setDescription}
      />
      {kind && (
        <div className="subsection">
          <h3>Generator parameters</h3>
          <ParamsForm schema={kind.params_schema} value={params} onChange={setParams} errors={paramErrors(errors)} />
        </div>
      )}
      <EnvironmentField familyKind={family.kind} value={environment} onChange={setEnvironment} errors={errors} idPrefix="settings" />
      <InputField
        id="settings-template"
        label="Prompt template"
        multiline
        placeholder={kind?.prompt_template}
        value={template}
        error={errors.prompt_template}
        hint="Leave empty to use the kind’s template shown in grey."
        onChange={setTemplate}
      />
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={update.isPending || !changed || !name.trim()}>
          {update.isPending ? "Saving…" : "Save settings"}
        </button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>
          Cancel
        </button>
        <span className="subtle">Frozen versions keep the settings they were made with.</span>
      </div>
    </form>
  );
}
