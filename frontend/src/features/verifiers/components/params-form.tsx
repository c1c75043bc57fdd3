// A form generated from a layer kind's params_schema: text, numbers, booleans, enums and
// lists of strings get their own controls; anything else gets a JSON editor.
import type { ReactNode } from "react";

import type { JsonSchema } from "../types";
import { JsonEditor } from "./json-editor";
import { NumberInput } from "./number-input";

type Control = "text" | "textarea" | "number" | "integer" | "boolean" | "enum" | "strings" | "enum-set" | "json";

function controlFor(key: string, schema: JsonSchema): Control {
  if (schema.enum) return "enum";
  switch (schema.type) {
    case "string": {
      const long = typeof schema.default === "string" && schema.default.includes("\n");
      return long || key === "code" ? "textarea" : "text";
    }
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    case "array":
      if (schema.items?.enum) return "enum-set";
      if (schema.items?.type === "string") return "strings";
      return "json";
    default:
      return "json";
  }
}

function ParamField({
  id,
  label,
  hint,
  errors,
  wide,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  errors: string[];
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={wide ? "field is-wide" : "field"}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <span className="field-hint">{hint}</span>}
      {errors.map((message) => (
        <span key={message} className="field-error" role="alert">
          {message}
        </span>
      ))}
    </div>
  );
}

function hintFor(schema: JsonSchema): string | undefined {
  const parts: string[] = [];
  if (schema.description) parts.push(schema.description);
  if (schema.minimum !== undefined && schema.maximum !== undefined) parts.push(`${schema.minimum}–${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  return parts.join(" · ") || undefined;
}

function placeholderFor(schema: JsonSchema): string | undefined {
  return schema.default === undefined ? undefined : `default ${JSON.stringify(schema.default)}`;
}

export function ParamsForm({
  idPrefix,
  schema,
  params,
  errors,
  onChange,
}: {
  idPrefix: string;
  schema: JsonSchema;
  params: Record<string, unknown>;
  errors: Record<string, string[]>;
  onChange: (key: string, value: unknown) => void;
}) {
  // A deprecated param is an old name kept for stored specs: shown only where a spec uses it.
  const properties = Object.entries(schema.properties ?? {}).filter(
    ([key, field]) => !field.deprecated || params[key] !== undefined,
  );
  const required = new Set(schema.required ?? []);
  // Params the schema does not know (say, from an API-written spec) still show, as JSON.
  const unknown = Object.keys(params).filter((key) => !schema.properties?.[key]);
  if (properties.length === 0 && unknown.length === 0) {
    return <p className="subtle">This layer has no parameters.</p>;
  }

  return (
    <div className="vf-params">
      {properties.map(([key, field]) => {
        const id = `${idPrefix}-${key}`;
        const label = required.has(key) ? `${key} *` : key;
        const control = controlFor(key, field);
        const value = params[key];
        const fieldErrors = errors[key] ?? [];
        const invalid = fieldErrors.length > 0 ? true : undefined;
        const common = { id, label, hint: hintFor(field), errors: fieldErrors };
        switch (control) {
          case "boolean": {
            const checked = typeof value === "boolean" ? value : field.default === true;
            return (
              <ParamField key={key} {...common} label={`${label}`} hint={common.hint}>
                <label className="vf-check">
                  <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(key, e.target.checked)} />
                  {checked ? "yes" : "no"}
                </label>
              </ParamField>
            );
          }
          case "number":
          case "integer":
            return (
              <ParamField key={key} {...common}>
                <NumberInput
                  id={id}
                  className="input"
                  step={control === "integer" ? 1 : "any"}
                  placeholder={placeholderFor(field)}
                  aria-invalid={invalid}
                  value={typeof value === "number" ? value : undefined}
                  onValue={(n) => onChange(key, n)}
                />
              </ParamField>
            );
          case "enum":
            return (
              <ParamField key={key} {...common}>
                <select
                  id={id}
                  className="select"
                  aria-invalid={invalid}
                  value={value === undefined ? "" : String(value)}
                  onChange={(e) => onChange(key, e.target.value === "" ? undefined : e.target.value)}
                >
                  <option value="">{field.default !== undefined ? `default (${String(field.default)})` : "—"}</option>
                  {(field.enum ?? []).map((option) => (
                    <option key={String(option)} value={String(option)}>
                      {String(option)}
                    </option>
                  ))}
                </select>
              </ParamField>
            );
          case "strings": {
            const lines = Array.isArray(value) ? (value as unknown[]).map(String).join("\n") : "";
            return (
              <ParamField key={key} {...common} hint={[common.hint, "one per line"].filter(Boolean).join(" · ")} wide>
                <textarea
                  id={id}
                  className="vf-textarea"
                  rows={Math.min(6, Math.max(2, lines.split("\n").length))}
                  aria-invalid={invalid}
                  value={lines}
                  onChange={(e) => {
                    const items = e.target.value.split("\n");
                    onChange(key, e.target.value === "" ? undefined : items);
                  }}
                  onBlur={(e) => {
                    const items = e.target.value.split("\n").map((s) => s.trim()).filter(Boolean);
                    onChange(key, items.length ? items : undefined);
                  }}
                />
              </ParamField>
            );
          }
          case "enum-set": {
            const chosen = new Set(Array.isArray(value) ? (value as unknown[]).map(String) : []);
            return (
              <ParamField key={key} {...common} wide>
                <div className="row" id={id} role="group" aria-label={key}>
                  {(field.items?.enum ?? []).map((option) => (
                    <label key={String(option)} className="vf-check">
                      <input
                        type="checkbox"
                        checked={chosen.has(String(option))}
                        onChange={(e) => {
                          const next = new Set(chosen);
                          if (e.target.checked) next.add(String(option));
                          else next.delete(String(option));
                          onChange(key, next.size ? [...next] : undefined);
                        }}
                      />
                      {String(option)}
                    </label>
                  ))}
                </div>
              </ParamField>
            );
          }
          case "text":
          case "textarea":
            return (
              <ParamField key={key} {...common} wide={control === "textarea" || key === "pattern"}>
                {control === "textarea" ? (
                  <textarea
                    id={id}
                    className="vf-textarea"
                    rows={5}
                    aria-invalid={invalid}
                    placeholder={typeof field.default === "string" ? field.default : undefined}
                    value={typeof value === "string" ? value : ""}
                    onChange={(e) => onChange(key, e.target.value === "" ? undefined : e.target.value)}
                  />
                ) : (
                  <input
                    id={id}
                    className="input mono"
                    aria-invalid={invalid}
                    placeholder={placeholderFor(field)}
                    value={typeof value === "string" ? value : ""}
                    onChange={(e) => onChange(key, e.target.value === "" ? undefined : e.target.value)}
                  />
                )}
              </ParamField>
            );
          default:
            return (
              <ParamField key={key} {...common} wide>
                <JsonEditor
                  id={id}
                  value={value}
                  requireObject={field.type === "object"}
                  invalid={invalid}
                  onChange={(parsed, valid) => valid && onChange(key, parsed)}
                />
              </ParamField>
            );
        }
      })}
      {unknown.map((key) => (
        <ParamField key={key} id={`${idPrefix}-${key}`} label={`${key} (unknown)`} errors={errors[key] ?? []} wide>
          <JsonEditor
            id={`${idPrefix}-${key}`}
            value={params[key]}
            requireObject={false}
            onChange={(parsed, valid) => valid && onChange(key, parsed)}
          />
        </ParamField>
      ))}
    </div>
  );
}
