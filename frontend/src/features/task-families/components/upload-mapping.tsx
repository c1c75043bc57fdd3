import type { FileSummary } from "../api/types";

import { FieldError } from "./form-fields";

/** The mapping a file starts with: each field read from the column of its own name, if any. */
export function initialMapping(summary: FileSummary): Record<string, string> {
  return { ...summary.suggested_mapping };
}

/**
 * Which column of the file fills each field the kind reads. The choices are the file's own
 * columns, so a mapping can only name a column that exists; a required field left unmapped
 * is marked before anything is sent.
 */
export function UploadMapping({
  summary,
  mapping,
  onChange,
  errors,
}: {
  summary: FileSummary;
  mapping: Record<string, string>;
  onChange: (mapping: Record<string, string>) => void;
  /** The server's message per field (from `mapping.<field>`). */
  errors: Record<string, string>;
}) {
  const required = new Set(summary.required_fields);
  return (
    <fieldset className="param-fieldset">
      <legend>Field mapping: which column of the file fills each field</legend>
      <div className="table-wrap">
        <table className="table" aria-label="Field mapping">
          <thead>
            <tr>
              <th>Field</th>
              <th>Column in the file</th>
            </tr>
          </thead>
          <tbody>
            {summary.fields.map((field) => {
              const missing = required.has(field) && !mapping[field];
              const message = errors[field] ?? (missing ? "Required: choose the column that holds it." : undefined);
              return (
                <tr key={field}>
                  <td className="mono">
                    <label htmlFor={`map-${field}`}>{field}</label>
                    {required.has(field) && <span className="subtle"> (required)</span>}
                  </td>
                  <td style={{ paddingTop: 4, paddingBottom: 4 }}>
                    <select
                      id={`map-${field}`}
                      className="select mono"
                      style={{ height: 26, width: 220 }}
                      value={mapping[field] ?? ""}
                      aria-invalid={message ? true : undefined}
                      aria-describedby={message ? `map-${field}-error` : undefined}
                      onChange={(e) => {
                        const next = { ...mapping, [field]: e.target.value };
                        if (!e.target.value) delete next[field];
                        onChange(next);
                      }}
                    >
                      <option value="">— not in the file —</option>
                      {summary.columns.map((column) => (
                        <option key={column} value={column}>
                          {column}
                        </option>
                      ))}
                    </select>
                    <FieldError id={`map-${field}-error`} message={message} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </fieldset>
  );
}

/**
 * A level for each text label of the difficulty column ("easy", "hard"): a label has no
 * level of its own, so the importer gives each one; a label left without one rejects its rows.
 */
export function DifficultyLabels({
  labels,
  levels,
  value,
  onChange,
}: {
  labels: string[];
  levels: number[];
  value: Record<string, number>;
  onChange: (value: Record<string, number>) => void;
}) {
  return (
    <fieldset className="param-fieldset">
      <legend>Difficulty labels: the level of each text in the difficulty column</legend>
      <div className="form-row">
        {labels.map((label) => (
          <div className="field" key={label} style={{ flex: "0 1 140px" }}>
            <label htmlFor={`label-${label}`}>{label}</label>
            <select
              id={`label-${label}`}
              className="select"
              value={value[label] ?? ""}
              onChange={(e) => {
                const next = { ...value, [label]: Number(e.target.value) };
                if (!e.target.value) delete next[label];
                onChange(next);
              }}
            >
              <option value="">— no level —</option>
              {levels.map((level) => (
                <option key={level} value={level}>
                  Level {level}
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
    </fieldset>
  );
}
