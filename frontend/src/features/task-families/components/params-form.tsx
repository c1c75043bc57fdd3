import { useState } from "react";

import type { JsonSchema } from "../api/types";

export type Params = Record<string, unknown>;

type Control = "enum-set" | "enum" | "boolean" | "number" | "integer" | "string";

function controlFor(schema: JsonSchema): Control | null {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "array" && schema.items?.enum) return "enum-set";
  if (schema.enum) return "enum";
  if (type === "boolean") return "boolean";
  if (type === "integer") return "integer";
  if (type === "number") return "number";
  if (type === "string") return "string";
  return null;
}

/** True when every property of the schema has a form control; else the JSON editor is used. */
export function hasFormControls(schema: JsonSchema): boolean {
  return Object.values(schema.properties ?? {}).every((p) => controlFor(p) !== null);
}

/** The schema's defaults, as the generator would fill them in. */
export function defaultParams(schema: JsonSchema): Params {
  const params: Params = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default !== undefined) params[name] = prop.default;
  }
  return params;
}

function humanize(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function ParamControl({
  name,
  schema,
  value,
  error,
  onChange,
}: {
  name: string;
  schema: JsonSchema;
  value: unknown;
  error?: string;
  onChange: (value: unknown) => void;
}) {
  const id = `param-${name}`;
  const label = schema.title ?? humanize(name);
  const control = controlFor(schema);

  if (control === "enum-set") {
    const options = schema.items?.enum ?? [];
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="param-fieldset" aria-describedby={error ? `${id}-error` : undefined}>
        <legend>{label}</legend>
        <div className="row" style={{ flexWrap: "wrap" }}>
          {options.map((option) => {
            const text = String(option);
            return (
              <label key={text} className="tf-check">
                <input
                  type="checkbox"
                  checked={chosen.includes(option)}
                  onChange={(e) =>
                    onChange(
                      e.target.checked
                        ? options.filter((o) => o === option || chosen.includes(o))
                        : chosen.filter((o) => o !== option),
                    )
                  }
                />
                <code>{text}</code>
              </label>
            );
          })}
        </div>
        {schema.description && <span className="field-hint">{schema.description}</span>}
        {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
      </fieldset>
    );
  }
  if (control === "boolean") {
    return (
      <div className="field">
        <label className="tf-check">
          <input type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(e.target.checked)} />
          {label}
        </label>
        {schema.description && <span className="field-hint">{schema.description}</span>}
        {error && <span className="field-error">{error}</span>}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control === "enum" ? (
        <select id={id} className="select" value={String(value ?? "")} onChange={(e) => onChange(e.target.value)}>
          {(schema.enum ?? []).map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          className="input"
          type={control === "string" ? "text" : "number"}
          step={control === "integer" ? 1 : "any"}
          min={schema.minimum}
          max={schema.maximum}
          value={value === undefined || value === null ? "" : String(value)}
          aria-invalid={error ? true : undefined}
          onChange={(e) =>
            onChange(control === "string" ? e.target.value : e.target.value === "" ? undefined : Number(e.target.value))
          }
        />
      )}
      {schema.description && <span className="field-hint">{schema.description}</span>}
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}

/**
 * Generator parameters as a form built from the kind's JSON Schema: enum arrays as
 * checkboxes, booleans, numbers, strings. Any schema it cannot draw gets a JSON editor.
 * `errors` maps a parameter name to the server's message about it.
 */
export function ParamsForm({
  schema,
  value,
  onChange,
  errors = {},
}: {
  schema: JsonSchema;
  value: Params;
  onChange: (value: Params) => void;
  errors?: Record<string, string>;
}) {
  const properties = Object.entries(schema.properties ?? {});
  const [useJson, setUseJson] = useState(!hasFormControls(schema));
  const [text, setText] = useState(() => JSON.stringify(value, null, 2));
  const [jsonError, setJsonError] = useState<string | null>(null);

  if (properties.length === 0) {
    return <p className="subtle">This kind has no generator parameters.</p>;
  }

  if (useJson) {
    return (
      <div className="field">
        <label htmlFor="params-json">Parameters (JSON)</label>
        <textarea
          id="params-json"
          className="input tf-textarea mono"
          rows={6}
          value={text}
          aria-invalid={jsonError ? true : undefined}
          onChange={(e) => {
            setText(e.target.value);
            try {
              const parsed: unknown = JSON.parse(e.target.value || "{}");
              if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
                throw new Error("Parameters must be a JSON object.");
              }
              setJsonError(null);
              onChange(parsed as Params);
            } catch (err) {
              setJsonError(err instanceof Error ? err.message : "Invalid JSON.");
            }
          }}
        />
        {jsonError && <span className="field-error">{jsonError}</span>}
        {Object.entries(errors).map(([name, message]) => (
          <span key={name} className="field-error">
            {name}: {message}
          </span>
        ))}
        {hasFormControls(schema) && (
          <button type="button" className="btn btn-sm btn-ghost" style={{ alignSelf: "start" }} onClick={() => setUseJson(false)}>
            Edit as a form
          </button>
        )}
      </div>
    );
  }

  return (
    <div className="stack" style={{ gap: "var(--space-3)" }}>
      {properties.map(([name, prop]) => (
        <ParamControl
          key={name}
          name={name}
          schema={prop}
          value={value[name]}
          error={errors[name]}
          onChange={(next) => {
            const copy = { ...value };
            if (next === undefined) delete copy[name];
            else copy[name] = next;
            onChange(copy);
          }}
        />
      ))}
      <button
        type="button"
        className="btn btn-sm btn-ghost"
        style={{ alignSelf: "start" }}
        onClick={() => {
          setText(JSON.stringify(value, null, 2));
          setUseJson(true);
        }}
      >
        Edit as JSON
      </button>
    </div>
  );
}
