import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { isApiError } from "@/lib/api-client";

import { useUploadVersion, type UploadFormat } from "../api/upload-version";
import type { VersionResult } from "../api/version-request";

import { RowErrorsTable, rowErrors } from "./row-errors-table";
import { VersionResultNotice } from "./version-result-notice";

const FORMATS: UploadFormat[] = ["jsonl", "csv", "parquet"];

function formatOf(name: string): UploadFormat | null {
  const ext = name.toLowerCase().split(".").pop();
  if (ext === "jsonl" || ext === "ndjson") return "jsonl";
  if (ext === "csv") return "csv";
  if (ext === "parquet") return "parquet";
  return null;
}

/**
 * Import a file of tasks. The mapping says which column of the file fills each field the
 * kind needs; it starts as "same name". A rejected file lists each bad row and column.
 */
export function UploadVersionForm({ familyId, recordFields }: { familyId: number; recordFields: string[] }) {
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<UploadFormat>("jsonl");
  const [mapping, setMapping] = useState<Record<string, string>>(() =>
    Object.fromEntries(recordFields.map((f) => [f, f])),
  );
  const [nearDuplicates, setNearDuplicates] = useState(true);
  const [note, setNote] = useState("");
  const [result, setResult] = useState<VersionResult | null>(null);
  const upload = useUploadVersion(familyId);
  const rejection = isApiError(upload.error) ? rowErrors(upload.error.errors) : null;
  const hasRows = (rejection?.rows.length ?? 0) > 0;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setResult(null);
    const used = Object.fromEntries(Object.entries(mapping).filter(([, column]) => column.trim() !== ""));
    upload.mutate({ file, format, mapping: used, near_duplicates: nearDuplicates, note: note.trim() }, { onSuccess: setResult });
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Upload a version">
      <div className="form-row">
        <div className="field" style={{ flex: "2 1 260px" }}>
          <label htmlFor="upload-file">File</label>
          <input
            id="upload-file"
            className="input"
            type="file"
            accept=".jsonl,.ndjson,.csv,.parquet"
            style={{ paddingTop: 4 }}
            onChange={(e) => {
              const chosen = e.target.files?.[0] ?? null;
              setFile(chosen);
              const guessed = chosen ? formatOf(chosen.name) : null;
              if (guessed) setFormat(guessed);
              upload.reset();
            }}
          />
        </div>
        <div className="field" style={{ flex: "0 1 120px" }}>
          <label htmlFor="upload-format">Format</label>
          <select id="upload-format" className="select" value={format} onChange={(e) => setFormat(e.target.value as UploadFormat)}>
            {FORMATS.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </div>
      </div>
      <fieldset className="param-fieldset">
        <legend>Field mapping: which column fills each field</legend>
        <div className="table-wrap">
          <table className="table" aria-label="Field mapping">
            <thead>
              <tr>
                <th>Field</th>
                <th>Column in the file</th>
              </tr>
            </thead>
            <tbody>
              {recordFields.map((field) => (
                <tr key={field}>
                  <td className="mono">
                    <label htmlFor={`map-${field}`}>{field}</label>
                  </td>
                  <td style={{ paddingTop: 4, paddingBottom: 4 }}>
                    <input
                      id={`map-${field}`}
                      className="input mono"
                      style={{ height: 26, width: 220 }}
                      value={mapping[field] ?? ""}
                      placeholder="not in the file"
                      onChange={(e) => setMapping({ ...mapping, [field]: e.target.value })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </fieldset>
      <div className="form-row">
        <div className="field" style={{ flex: "2 1 260px" }}>
          <label htmlFor="upload-note">Note</label>
          <input id="upload-note" className="input" value={note} placeholder="Optional" onChange={(e) => setNote(e.target.value)} />
        </div>
        <label className="tf-check" style={{ paddingBottom: 6 }}>
          <input type="checkbox" checked={nearDuplicates} onChange={(e) => setNearDuplicates(e.target.checked)} />
          Remove near-duplicates
        </label>
        <button type="submit" className="btn btn-primary" disabled={!file || upload.isPending}>
          {upload.isPending ? "Uploading…" : "Upload and freeze"}
        </button>
      </div>
      {hasRows && rejection ? (
        <div className="stack" style={{ gap: "var(--space-2)" }}>
          <div className="alert alert-error" role="alert">
            {rejection.summary.map((m) => (
              <div key={m}>{m}</div>
            ))}
          </div>
          <RowErrorsTable rows={rejection.rows} />
        </div>
      ) : (
        <ErrorMessage error={upload.error} />
      )}
      {result && <VersionResultNotice result={result} familyId={familyId} />}
    </form>
  );
}
