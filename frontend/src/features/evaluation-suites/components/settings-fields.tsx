import { FormField } from "@/components/ui/form-field";

import type { Settings } from "./form-state";

const FIELDS: { key: keyof Settings; path: string; label: string; help: string }[] = [
  { key: "k", path: "k", label: "Samples per task (k)", help: "pass@1 and pass@k come from these." },
  { key: "temperature", path: "temperature", label: "Temperature", help: "0 is greedy." },
  { key: "maxNewTokens", path: "max_new_tokens", label: "Max new tokens", help: "Per sample." },
  { key: "maxTasks", path: "max_tasks", label: "Max tasks per family", help: "The first ones of each held-out split." },
  { key: "seed", path: "seed", label: "Seed", help: "The same seed samples the same way." },
];

/** Samples per task, decoding and how many held-out tasks: what an evaluation runs with. */
export function SettingsFields({
  settings,
  errorFor,
  disabled,
  onChange,
}: {
  settings: Settings;
  errorFor: (path: string) => string | undefined;
  disabled?: boolean;
  onChange: (settings: Settings) => void;
}) {
  return (
    <div className="es-settings">
      {FIELDS.map((field) => (
        <FormField key={field.key} label={field.label} hint={field.help} error={errorFor(field.path)} disabled={disabled}>
          {(control) => (
            <input
              {...control}
              className="input"
              inputMode="decimal"
              value={settings[field.key]}
              onChange={(e) => onChange({ ...settings, [field.key]: e.target.value })}
            />
          )}
        </FormField>
      ))}
    </div>
  );
}
