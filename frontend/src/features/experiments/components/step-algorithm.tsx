import { useState } from "react";

import { QueryPlaceholder } from "@/components/ui/card";

import { useAlgorithms } from "../api/get-algorithms";
import { usePresets, type Preset } from "../api/get-presets";
import type { Algorithm, Hyperparameter } from "../api/types";
import { applyPreset, formValue, hyperparameterPath, switchAlgorithm, type Draft } from "../lib/draft";
import "../presets.css";
import { WizardField, type ControlProps } from "./wizard-field";

/** Shown first; the rest sit behind "all hyper-parameters" (opened by any error among them). */
const PRIMARY = [
  "max_steps",
  "prompts_per_step",
  "group_size",
  "learning_rate",
  "num_epochs",
  "kl_estimator",
  "kl_coef",
  "sampling.max_new_tokens",
  "sampling.temperature",
  "checkpoint_every",
];

/** The engine's help names values in backticks (`none` or `batch`): shown as code. */
export function Backticked({ text }: { text: string }) {
  return (
    <>
      {text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}
    </>
  );
}

function FieldControl({ field, value, control, onChange }: { field: Hyperparameter; value: string | boolean; control: ControlProps; onChange: (v: string | boolean) => void }) {
  if (field.type === "bool") {
    return (
      <span className="ex-check">
        <input {...control} type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(e.target.checked)} />
        <span className="subtle">{value ? "on" : "off"}</span>
      </span>
    );
  }
  if (field.choices) {
    return (
      <select {...control} className="select" value={String(value)} onChange={(e) => onChange(e.target.value)}>
        {field.choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    );
  }
  const numeric = field.type === "int" || field.type === "float";
  return (
    <input
      {...control}
      className="input"
      inputMode={numeric ? "decimal" : undefined}
      placeholder={field.nullable ? "off" : undefined}
      value={String(value)}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** The named recipes: one click fills a paper's values; the run's size stays as set. */
function PresetPicker({ draft, algorithms, presets, onChange }: { draft: Draft; algorithms: Algorithm[]; presets: Preset[]; onChange: (draft: Draft) => void }) {
  const chosen = presets.find((p) => p.name === draft.preset);
  return (
    <div className="ex-presets" role="group" aria-label="Presets">
      <div className="ex-presets-head">
        <span className="ex-presets-title">Start from a preset</span>
        <span className="subtle">It fills the values its paper uses, each explained below, and a run size measured to learn on the demo task.</span>
      </div>
      <div className="ex-preset-list">
        {presets.map((preset) => (
          <button
            key={preset.name}
            type="button"
            className={`ex-preset${preset.name === draft.preset ? " is-active" : ""}`}
            aria-pressed={preset.name === draft.preset}
            title={preset.summary}
            onClick={() => {
              const algorithm = algorithms.find((a) => a.name === preset.algorithm);
              if (algorithm) onChange(applyPreset(draft, preset, algorithm, presets));
            }}
          >
            {preset.title}
          </button>
        ))}
      </div>
      {chosen && (
        <p className="ex-preset-summary" data-testid="preset-summary">
          <strong>{chosen.title}.</strong> {chosen.summary} <span className="subtle">{chosen.source}.</span>
          {chosen.measured && <span className="ex-preset-measured" data-testid="preset-measured"> Measured: {chosen.measured}</span>}
        </p>
      )}
    </div>
  );
}

function HyperparameterField({ field, draft, error, why, onChange }: { field: Hyperparameter; draft: Draft; error?: string; why?: string; onChange: (draft: Draft) => void }) {
  const set = draft.hyper[field.path];
  const value = set ?? formValue(field, field.default);
  const changed = set !== undefined && set !== formValue(field, field.default);
  const reset = () => {
    const hyper = { ...draft.hyper };
    delete hyper[field.path];
    onChange({ ...draft, hyper });
  };
  const label = <span className="mono">{field.path}</span>;
  const aside = changed && (
    <button type="button" className="ex-reset" onClick={reset} aria-label={`Reset ${field.path} to its default`}>
      default {String(formValue(field, field.default)) || "off"}
    </button>
  );
  const help = (
    <>
      <Backticked text={field.help} />
      {why && <span className="ex-why"> Preset: {why}</span>}
    </>
  );
  return (
    <WizardField label={label} aside={aside} help={help} error={error} className={changed ? "is-changed" : undefined}>
      {(control) => <FieldControl field={field} value={value} control={control} onChange={(v) => onChange({ ...draft, hyper: { ...draft.hyper, [field.path]: v } })} />}
    </WizardField>
  );
}

/** The prompts a run plans (steps × prompts per step), as the form holds them; null when either is not a number yet. */
export function plannedPrompts(draft: Draft, algorithm: Algorithm): number | null {
  const value = (path: string) => {
    const field = algorithm.fields.find((f) => f.path === path);
    const text = draft.hyper[path] ?? (field ? formValue(field, field.default) : "");
    const n = Number(String(text).trim());
    return String(text).trim() !== "" && Number.isInteger(n) && n > 0 ? n : null;
  };
  const [steps, prompts] = [value("max_steps"), value("prompts_per_step")];
  return steps === null || prompts === null ? null : steps * prompts;
}

/** A warning when the run is too short to move the policy (the measured floor, `min_prompts`). */
function RunSizeWarning({ draft, algorithm }: { draft: Draft; algorithm: Algorithm }) {
  const planned = plannedPrompts(draft, algorithm);
  const least = algorithm.min_prompts;
  if (planned === null || least === null || least === undefined || planned >= least) return null;
  return (
    <div className="alert alert-warning" role="status" data-testid="run-size-warning">
      {planned.toLocaleString("en")} prompts (max_steps × prompts_per_step) are too few to move the policy: on the demo task every preset needed{" "}
      {least.toLocaleString("en")} to lift held-out success. Raise max_steps or prompts_per_step, or start from a preset.
    </div>
  );
}

/** Step 3: the algorithm and its hyper-parameters, each with its default and one line of help. */
export function StepAlgorithm({ draft, errors, onChange }: { draft: Draft; errors: Record<string, string>; onChange: (draft: Draft) => void }) {
  const algorithms = useAlgorithms();
  const presets = usePresets();
  const [showAll, setShowAll] = useState(false);
  const preset = presets.data?.find((p) => p.name === draft.preset);
  const whyOf = (path: string) => preset?.values.find((v) => v.path === path)?.why || undefined;
  const algorithm: Algorithm | undefined = algorithms.data?.find((a) => a.name === draft.algorithm);
  const errorFor = (path: string) => errors[`config.hyperparameters.${path}`];
  const fields = algorithm?.fields ?? [];
  const primary = PRIMARY.map((p) => fields.find((f) => f.path === p)).filter((f): f is Hyperparameter => !!f);
  const rest = fields.filter((f) => !PRIMARY.includes(f.path));
  const restHasError = rest.some((f) => errorFor(f.path));
  const unknown = Object.entries(errors).filter(([field]) => {
    const path = hyperparameterPath(field);
    return field === "config.hyperparameters" || (path !== null && !fields.some((f) => f.path === path));
  });

  return (
    <div className="stack">
      <QueryPlaceholder query={algorithms} />
      {algorithms.data && presets.data && <PresetPicker draft={draft} algorithms={algorithms.data} presets={presets.data} onChange={onChange} />}
      {algorithms.data && (
        <WizardField label="Algorithm" help={algorithm?.summary} error={errors["config.algorithm"]}>
          {(control) => (
            <select
              {...control}
              className="select ex-wide"
              value={draft.algorithm}
              onChange={(e) => {
                const next = algorithms.data.find((a) => a.name === e.target.value);
                if (next) onChange(switchAlgorithm(draft, next));
              }}
            >
              {algorithms.data.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name.toUpperCase()}
                </option>
              ))}
            </select>
          )}
        </WizardField>
      )}
      {unknown.map(([field, message]) => (
        <div key={field} className="field-error" role="alert">
          {field.replace(/^config\./, "")}: {message}
        </div>
      ))}
      {algorithm && (
        <>
          <RunSizeWarning draft={draft} algorithm={algorithm} />
          <div className="ex-grid" role="group" aria-label="Main hyper-parameters">
            {primary.map((f) => (
              <HyperparameterField key={f.path} field={f} draft={draft} error={errorFor(f.path)} why={whyOf(f.path)} onChange={onChange} />
            ))}
          </div>
          <button type="button" className="btn btn-ghost ex-more" aria-expanded={showAll || restHasError} onClick={() => setShowAll(!showAll)}>
            {showAll || restHasError ? "Hide" : "Show"} all {rest.length} other hyper-parameters
          </button>
          {(showAll || restHasError) && (
            <div className="ex-grid" role="group" aria-label="Other hyper-parameters">
              {rest.map((f) => (
                <HyperparameterField key={f.path} field={f} draft={draft} error={errorFor(f.path)} why={whyOf(f.path)} onChange={onChange} />
              ))}
            </div>
          )}
        </>
      )}
    </div>
  );
}
