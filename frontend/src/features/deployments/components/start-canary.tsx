// Start a canary: a candidate version of the deployment's model, split (a rising share of the
// traffic) or shadow (a copy of it, never shown to callers), its steps and its guardrails.
import { useId, useState, type FormEvent } from "react";

import { FormAlert, FormField } from "@/components/ui/form-field";
import { fieldErrors } from "@/lib/field-errors";

import { useModelVersions, useStartCanary } from "../api/canaries";
import type { CanaryMode, Deployment, GuardrailInput } from "../api/types";
import { defaultSteps, parseSteps } from "../lib/format";

type GuardrailKey = keyof Omit<GuardrailInput, "alpha">;

export const GUARDRAIL_DEFAULTS: Record<GuardrailKey, number> = {
  min_samples: 40,
  max_samples: 400,
  max_pass_drop: 0.05,
  max_error_rate: 0.05,
  max_latency_p95_ratio: 1.5,
  max_length_ratio: 1.5,
};

const GUARDRAIL_HINTS: Record<GuardrailKey, string> = {
  min_samples: "Verified requests per side before a step is judged.",
  max_samples: "Verified requests per side after which a step ends inconclusive.",
  max_pass_drop: "Largest pass-rate drop (a fraction) the candidate may show.",
  max_error_rate: "Largest share of the candidate's requests that may fail.",
  max_latency_p95_ratio: "Candidate p95 latency over production's, at most.",
  max_length_ratio: "Candidate mean output length over production's, at most.",
};

const GUARDRAIL_KEYS = Object.keys(GUARDRAIL_DEFAULTS) as GuardrailKey[];
const INTEGER_KEYS = new Set<GuardrailKey>(["min_samples", "max_samples"]);

const shownField = (field: string) =>
  ["candidate", "mode", "steps"].includes(field) || GUARDRAIL_KEYS.some((k) => field === `guardrails.${k}`);

export function StartCanary({ deployment }: { deployment: Deployment }) {
  const id = useId();
  const versions = useModelVersions(deployment.registered_model);
  const start = useStartCanary(deployment.slug);
  const [candidate, setCandidate] = useState("");
  const [mode, setMode] = useState<CanaryMode>("split");
  const [steps, setSteps] = useState(defaultSteps("split"));
  const [guardrails, setGuardrails] = useState<Record<GuardrailKey, string>>(
    () => Object.fromEntries(GUARDRAIL_KEYS.map((k) => [k, String(GUARDRAIL_DEFAULTS[k])])) as Record<GuardrailKey, string>,
  );
  const choices = (versions.data?.results ?? [])
    .filter((v) => v.id !== deployment.version?.id)
    .sort((a, b) => b.number - a.number);
  const chosen = candidate || (choices[0] ? String(choices[0].id) : "");
  const parsed = parseSteps(steps);
  const badGuardrail = GUARDRAIL_KEYS.find((k) => guardrails[k].trim() === "" || !Number.isFinite(Number(guardrails[k])));
  const { byField, other } = fieldErrors(start.error, shownField);

  function changeMode(next: CanaryMode) {
    // The default steps follow the mode; steps someone typed are theirs.
    if (steps.trim() === defaultSteps(mode)) setSteps(defaultSteps(next));
    setMode(next);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!parsed.steps || badGuardrail || !chosen) return;
    const values = Object.fromEntries(GUARDRAIL_KEYS.map((k) => [k, Number(guardrails[k])])) as Record<GuardrailKey, number>;
    start.mutate({ candidate: Number(chosen), mode, steps: parsed.steps, guardrails: values });
  }

  return (
    <form className="dp-form" aria-label="Start a canary" onSubmit={submit}>
      <FormAlert messages={other} />
      <div className="form-row">
        <FormField label="Candidate" error={byField.candidate} hint={`A version of ${deployment.registered_model_name} other than the one serving.`}>
          {(control) => (
            <select {...control} className="select" value={chosen} onChange={(e) => setCandidate(e.target.value)}>
              {!choices.length && <option value="">{versions.isPending ? "Loading versions…" : "No other version"}</option>}
              {choices.map((v) => (
                <option key={v.id} value={v.id}>
                  {`${v.model_name} v${v.number}`}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <fieldset className="dp-mode">
          <legend>Mode</legend>
          <label>
            <input type="radio" name={`${id}-mode`} value="split" checked={mode === "split"} onChange={() => changeMode("split")} />
            Split
          </label>
          <label>
            <input type="radio" name={`${id}-mode`} value="shadow" checked={mode === "shadow"} onChange={() => changeMode("shadow")} />
            Shadow
          </label>
          {byField.mode && <span className="field-error">{byField.mode}</span>}
        </fieldset>
        <FormField
          label="Steps (%)"
          error={parsed.error ?? byField.steps}
          hint={mode === "shadow" ? "Share of the traffic copied to the candidate." : "Share of the traffic the candidate answers, rising."}
        >
          {(control) => <input {...control} className="input" value={steps} onChange={(e) => setSteps(e.target.value)} />}
        </FormField>
      </div>
      <fieldset className="dp-guardrails">
        <legend>Guardrails</legend>
        {GUARDRAIL_KEYS.map((key) => (
          <FormField key={key} label={key} error={byField[`guardrails.${key}`]} hint={GUARDRAIL_HINTS[key]}>
            {(control) => (
              <input
                {...control}
                type="number"
                className="input"
                min={0}
                step={INTEGER_KEYS.has(key) ? 1 : "any"}
                value={guardrails[key]}
                onChange={(e) => setGuardrails((held) => ({ ...held, [key]: e.target.value }))}
              />
            )}
          </FormField>
        ))}
      </fieldset>
      <div>
        <button type="submit" className="btn btn-primary" disabled={!chosen || !!parsed.error || !!badGuardrail || start.isPending}>
          Start canary
        </button>
      </div>
    </form>
  );
}
