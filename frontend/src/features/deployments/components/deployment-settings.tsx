// How the deployment generates: token budget, temperature, timeout, queue and batch sizes;
// editable in place (PATCH), each refusal shown under its field.
import { useState, type FormEvent } from "react";
import { Link } from "react-router";

import { FormAlert, FormField } from "@/components/ui/form-field";
import { fieldErrors } from "@/lib/field-errors";

import { useUpdateDeployment } from "../api/deployments";
import type { Deployment } from "../api/types";

type Key = "max_new_tokens" | "temperature" | "timeout_s" | "max_queue" | "max_batch";

const FIELDS: { key: Key; label: string; step: string }[] = [
  { key: "max_new_tokens", label: "Max new tokens", step: "1" },
  { key: "temperature", label: "Temperature", step: "any" },
  { key: "timeout_s", label: "Timeout (s)", step: "any" },
  { key: "max_queue", label: "Max queue", step: "1" },
  { key: "max_batch", label: "Max batch", step: "1" },
];

const SHOWN = new Set<string>(FIELDS.map((f) => f.key));

function EditSettings({ deployment, onDone }: { deployment: Deployment; onDone: () => void }) {
  const update = useUpdateDeployment(deployment.slug);
  const [values, setValues] = useState<Record<Key, string>>(
    () => Object.fromEntries(FIELDS.map(({ key }) => [key, String(deployment[key])])) as Record<Key, string>,
  );
  const { byField, other } = fieldErrors(update.error, (field) => SHOWN.has(field));
  const invalid = FIELDS.some(({ key }) => values[key].trim() === "" || !Number.isFinite(Number(values[key])));

  function submit(event: FormEvent) {
    event.preventDefault();
    // Only what changed, so a PATCH never rewrites a value someone else just set.
    const changed = Object.fromEntries(
      FIELDS.filter(({ key }) => Number(values[key]) !== deployment[key]).map(({ key }) => [key, Number(values[key])]),
    );
    if (Object.keys(changed).length === 0) return onDone();
    update.mutate(changed, { onSuccess: onDone });
  }

  return (
    <form className="dp-form" aria-label="Edit settings" onSubmit={submit}>
      <FormAlert messages={other} />
      <div className="form-row">
        {FIELDS.map(({ key, label, step }) => (
          <FormField key={key} label={label} error={byField[key]}>
            {(control) => (
              <input
                {...control}
                type="number"
                className="input"
                step={step}
                min={0}
                value={values[key]}
                onChange={(e) => setValues((held) => ({ ...held, [key]: e.target.value }))}
              />
            )}
          </FormField>
        ))}
      </div>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={invalid || update.isPending}>
          Save settings
        </button>
        <button type="button" className="btn btn-ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function DeploymentSettings({ deployment }: { deployment: Deployment }) {
  const [editing, setEditing] = useState(false);
  if (editing) return <EditSettings deployment={deployment} onDone={() => setEditing(false)} />;
  return (
    <div className="dp-row" style={{ alignItems: "flex-start" }}>
      <dl className="dp-stats" aria-label="Settings">
        <dt>Model</dt>
        <dd>
          <Link to={`/registry/${deployment.registered_model}`}>{deployment.registered_model_name}</Link>
        </dd>
        <dt>Serving</dt>
        <dd>{deployment.version?.label ?? "no version"}</dd>
        <dt>Max new tokens</dt>
        <dd>{deployment.max_new_tokens}</dd>
        <dt>Temperature</dt>
        <dd>{deployment.temperature}</dd>
        <dt>Timeout</dt>
        <dd>{deployment.timeout_s} s</dd>
        <dt>Queue / batch</dt>
        <dd>
          {deployment.max_queue} / {deployment.max_batch}
        </dd>
      </dl>
      <button type="button" className="btn btn-sm" onClick={() => setEditing(true)}>
        Edit settings
      </button>
    </div>
  );
}
