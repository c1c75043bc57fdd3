import type { components } from "@/api/schema";
import { useEnvironmentKinds, type EnvironmentKind } from "@/lib/environment-kinds";

import { FieldError, InputField } from "./form-fields";

/** A family's `environment` as the API stores it: null (single-turn) or its kind and limits. */
export type FamilyEnvironment = components["schemas"]["FamilyEnvironment"];
type Limits = FamilyEnvironment["limits"];

/** What the form edits: the kind ("" for single-turn) and each limit as typed. */
export type EnvironmentDraft = { kind: string; limits: Record<keyof Limits, string> };

const LIMIT_FIELDS: { key: keyof Limits; label: string; hint: string }[] = [
  { key: "max_turns", label: "Max turns", hint: "Assistant messages per episode." },
  { key: "max_tokens_per_turn", label: "Max tokens per turn", hint: "Tokens one message may have." },
  { key: "max_total_tokens", label: "Max total tokens", hint: "The whole conversation after the opening." },
];

export function draftOf(environment: FamilyEnvironment | null | undefined): EnvironmentDraft {
  if (!environment) return { kind: "", limits: { max_turns: "", max_tokens_per_turn: "", max_total_tokens: "" } };
  const l = environment.limits;
  return {
    kind: environment.kind,
    limits: { max_turns: String(l.max_turns), max_tokens_per_turn: String(l.max_tokens_per_turn), max_total_tokens: String(l.max_total_tokens) },
  };
}

/** The value sent: null for single-turn, else the kind and the limits typed (numbers). */
export function environmentValue(draft: EnvironmentDraft): FamilyEnvironment | null {
  if (!draft.kind) return null;
  const limits = Object.fromEntries(LIMIT_FIELDS.map(({ key }) => [key, Number(draft.limits[key])])) as Limits;
  return { kind: draft.kind, limits };
}

function withDefaults(kind: EnvironmentKind): EnvironmentDraft {
  return draftOf({ kind: kind.name, limits: kind.default_limits as Limits });
}

/** Whether errors of this path are shown by `EnvironmentField`. */
export function isEnvironmentField(field: string): boolean {
  return field === "environment" || field.startsWith("environment.");
}

/**
 * How a family is played: as single responses, or as episodes of an environment kind that
 * plays its kind (the model acts, the environment answers), within limits on turns and tokens.
 */
export function EnvironmentField({
  familyKind,
  value,
  onChange,
  errors,
  idPrefix,
}: {
  familyKind: string;
  value: EnvironmentDraft;
  onChange: (value: EnvironmentDraft) => void;
  errors: Record<string, string>;
  idPrefix: string;
}) {
  const kinds = useEnvironmentKinds();
  const playing = (kinds.data ?? []).filter((k) => k.family === familyKind);
  const chosen = playing.find((k) => k.name === value.kind);
  if (!playing.length && !value.kind) return null;
  return (
    <div className="subsection" aria-label="Environment">
      <h3>Environment</h3>
      <div className="field">
        <label htmlFor={`${idPrefix}-environment`}>Played as</label>
        <select
          id={`${idPrefix}-environment`}
          className="select"
          value={value.kind}
          aria-invalid={errors["environment.kind"] || errors.environment ? true : undefined}
          onChange={(e) => {
            const next = playing.find((k) => k.name === e.target.value);
            onChange(next ? withDefaults(next) : draftOf(null));
          }}
        >
          <option value="">Single response (no environment)</option>
          {playing.map((k) => (
            <option key={k.name} value={k.name}>
              {k.label}
            </option>
          ))}
          {value.kind && !chosen && <option value={value.kind}>{value.kind}</option>}
        </select>
        <FieldError id={`${idPrefix}-environment-error`} message={errors["environment.kind"] ?? errors.environment ?? errors["environment.limits"]} />
      </div>
      {chosen && <p className="subtle">{chosen.description}</p>}
      {value.kind && (
        <div className="form-row" style={{ alignItems: "flex-start" }}>
          {LIMIT_FIELDS.map(({ key, label, hint }) => (
            <InputField
              key={key}
              id={`${idPrefix}-${key.replaceAll("_", "-")}`}
              label={label}
              type="number"
              min={1}
              step={1}
              style={{ flex: "0 1 170px" }}
              value={value.limits[key]}
              hint={hint}
              error={errors[`environment.limits.${key}`]}
              onChange={(v) => onChange({ ...value, limits: { ...value.limits, [key]: v } })}
            />
          ))}
        </div>
      )}
    </div>
  );
}
