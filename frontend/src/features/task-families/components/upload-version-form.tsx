import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { isApiError, type ApiErrorItem } from "@/lib/api-client";

import { useInspectUpload } from "../api/inspect-upload";
import type { Family, FamilyKind, FileSummary, PromptMode, UploadMode } from "../api/types";
import { usePreviewUpload, useUploadVersion, type UploadFormat, type UploadOptions } from "../api/upload-version";
import type { VersionResult } from "../api/version-request";

import { fieldErrors } from "./field-errors";
import { PreviewResult } from "./preview-result";
import { RowErrorsTable, rowErrors } from "./row-errors-table";
import { UploadChanges } from "./upload-changes";
import { DifficultyLabels, initialMapping, UploadMapping } from "./upload-mapping";
import { VersionResultNotice } from "./version-result-notice";

const FORMATS: UploadFormat[] = ["jsonl", "csv", "parquet"];

function formatOf(name: string): UploadFormat | null {
  const ext = name.toLowerCase().split(".").pop();
  if (ext === "jsonl" || ext === "ndjson") return "jsonl";
  if (ext === "csv") return "csv";
  if (ext === "parquet") return "parquet";
  return null;
}

/** The server's messages about mapping fields (`mapping.prompt`), keyed by field. */
function mappingErrors(error: unknown): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fieldErrors(error))
      .filter(([field]) => field.startsWith("mapping."))
      .map(([field, message]) => [field.slice("mapping.".length), message]),
  );
}

/** An error about a request field other than the file says which field (`base`, a label). */
function named(e: ApiErrorItem): ApiErrorItem {
  const plain = !e.field || e.field === "file" || e.field.startsWith("rows[");
  return plain ? e : { ...e, message: `${e.field}: ${e.message}` };
}

/**
 * Import a file of tasks in three steps: the file is read for its columns (so the mapping
 * offers them, matching names chosen), a preview shows what freezing would make (the counts
 * against the latest version and the first final prompts), and only then is it frozen.
 * Defaults (near-duplicates, append or replace) are the server's, read from the family.
 */
export function UploadVersionForm({ family, kind }: { family: Family; kind?: FamilyKind }) {
  const defaults = family.version_defaults;
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<UploadFormat>("jsonl");
  const [summary, setSummary] = useState<FileSummary | null>(null);
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [labels, setLabels] = useState<Record<string, number>>({});
  // Unset choices follow the server's defaults, which change once the family has a version.
  const [chosenPromptMode, setPromptMode] = useState<PromptMode | null>(null);
  const [chosenMode, setMode] = useState<UploadMode | null>(null);
  const [chosenNear, setNearDuplicates] = useState<boolean | null>(null);
  const promptMode = chosenPromptMode ?? defaults.prompt_mode;
  const mode = chosenMode ?? defaults.mode;
  const nearDuplicates = chosenNear ?? defaults.near_duplicates;
  const [note, setNote] = useState("");
  const [previewed, setPreviewed] = useState<string | null>(null);
  const [result, setResult] = useState<VersionResult | null>(null);
  const inspect = useInspectUpload(family.id);
  const preview = usePreviewUpload(family.id);
  const upload = useUploadVersion(family.id);

  const latest = family.latest_version?.number ?? 0;
  const template = family.prompt_template || kind?.prompt_template || "";
  const levels = kind?.difficulty_levels ?? [1, 2, 3];
  const labelColumn = mapping.difficulty;
  const columnLabels = (labelColumn && summary?.labels[labelColumn]) || [];
  const options: UploadOptions | null = file && {
    file,
    format,
    mapping,
    difficulty_labels: Object.fromEntries(Object.entries(labels).filter(([label]) => columnLabels.includes(label))),
    prompt_mode: promptMode,
    mode: latest > 0 ? mode : "replace",
    near_duplicates: nearDuplicates,
  };
  const signature = options && JSON.stringify({ ...options, file: [file?.name, file?.size, file?.lastModified] });
  const fresh = preview.data !== undefined && previewed === signature;
  const missing = (summary?.required_fields ?? []).filter((f) => !mapping[f]);
  const error = upload.error ?? preview.error;
  const rejection = isApiError(error) ? rowErrors(error.errors.filter((e) => !e.field?.startsWith("mapping.")).map(named)) : null;

  function choose(chosen: File | null, chosenFormat: UploadFormat) {
    setFile(chosen);
    setFormat(chosenFormat);
    setSummary(null);
    setResult(null);
    preview.reset();
    upload.reset();
    if (!chosen) return;
    inspect.mutate(
      { file: chosen, format: chosenFormat },
      {
        onSuccess: (read) => {
          setSummary(read);
          setMapping(initialMapping(read));
          setLabels({});
        },
      },
    );
  }

  function runPreview() {
    if (!options) return;
    setResult(null);
    upload.reset();
    preview.mutate(options, { onSuccess: () => setPreviewed(signature) });
  }

  function freeze(event: FormEvent) {
    event.preventDefault();
    if (!options || !preview.data || !fresh) return;
    upload.mutate(
      { ...options, base: preview.data.base, note: note.trim() },
      {
        onSuccess: (done) => {
          setResult(done);
          preview.reset();
        },
      },
    );
  }

  return (
    <form className="stack" onSubmit={freeze} aria-label="Upload a version">
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
              choose(chosen, (chosen && formatOf(chosen.name)) || format);
            }}
          />
        </div>
        <div className="field" style={{ flex: "0 1 120px" }}>
          <label htmlFor="upload-format">Format</label>
          <select id="upload-format" className="select" value={format} onChange={(e) => choose(file, e.target.value as UploadFormat)}>
            {FORMATS.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </div>
      </div>
      {inspect.isPending && <p className="subtle">Reading the file’s columns…</p>}
      {inspect.error ? <ErrorMessage error={inspect.error} /> : null}
      {summary && (
        <>
          <p className="subtle" style={{ margin: 0 }}>
            {summary.rows_read} row(s) read; columns: <span className="mono">{summary.columns.join(", ") || "none"}</span>
          </p>
          <UploadMapping summary={summary} mapping={mapping} onChange={setMapping} errors={mappingErrors(error)} />
          {columnLabels.length > 0 && (
            <DifficultyLabels labels={columnLabels} levels={levels} value={labels} onChange={setLabels} />
          )}
          <fieldset className="param-fieldset">
            <legend>Prompts</legend>
            <label className="tf-check">
              <input type="radio" name="prompt-mode" checked={promptMode === "template"} onChange={() => setPromptMode("template")} />
              Apply the family’s prompt template
            </label>
            <pre className="tf-pre mono" aria-label="Prompt template">
              {template}
            </pre>
            {summary.fields.includes("prompt") && (
              <label className="tf-check">
                <input type="radio" name="prompt-mode" checked={promptMode === "as_is"} onChange={() => setPromptMode("as_is")} />
                Keep prompts as uploaded
              </label>
            )}
          </fieldset>
          {latest > 0 && (
            <fieldset className="param-fieldset">
              <legend>The latest version, v{latest}</legend>
              <label className="tf-check">
                <input type="radio" name="upload-mode" checked={mode === "append"} onChange={() => setMode("append")} />
                Add these tasks to v{latest}’s (duplicates dropped)
              </label>
              <label className="tf-check">
                <input type="radio" name="upload-mode" checked={mode === "replace"} onChange={() => setMode("replace")} />
                Replace v{latest}’s tasks with these
              </label>
            </fieldset>
          )}
          <div className="form-row">
            <div className="field" style={{ flex: "2 1 260px" }}>
              <label htmlFor="upload-note">Note</label>
              <input id="upload-note" className="input" value={note} placeholder="Optional" onChange={(e) => setNote(e.target.value)} />
            </div>
            <label className="tf-check" style={{ paddingBottom: 6 }}>
              <input type="checkbox" checked={nearDuplicates} onChange={(e) => setNearDuplicates(e.target.checked)} />
              Remove near-duplicates
            </label>
          </div>
          <div className="row">
            <button type="button" className="btn" onClick={runPreview} disabled={preview.isPending || missing.length > 0}>
              {preview.isPending ? "Previewing…" : "Preview"}
            </button>
            <button type="submit" className="btn btn-primary" disabled={!fresh || upload.isPending}>
              {upload.isPending ? "Freezing…" : "Freeze version"}
            </button>
            {!preview.data && !result && <span className="subtle">Preview first: freezing shows what it adds and removes.</span>}
            {preview.data && !fresh && <span className="subtle">The settings changed since this preview.</span>}
          </div>
        </>
      )}
      {rejection ? (
        (rejection.summary.length > 0 || rejection.rows.length > 0) && (
          <div className="stack" style={{ gap: "var(--space-2)" }}>
            {rejection.summary.length > 0 && (
              <div className="alert alert-error" role="alert">
                {rejection.summary.map((m) => (
                  <div key={m}>{m}</div>
                ))}
              </div>
            )}
            {rejection.rows.length > 0 && <RowErrorsTable rows={rejection.rows} />}
          </div>
        )
      ) : (
        <ErrorMessage error={error} />
      )}
      {result && <VersionResultNotice result={result} familyId={family.id} />}
      {preview.data && fresh && (
        <>
          <UploadChanges preview={preview.data} />
          <PreviewResult preview={preview.data} levels={levels} />
        </>
      )}
    </form>
  );
}
