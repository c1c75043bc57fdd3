import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";

import { useGenerateVersion } from "../api/generate-version";
import { usePreviewFamily } from "../api/preview-family";
import type { GenerateInput } from "../api/types";
import type { VersionResult } from "../api/version-request";

import { fieldErrors } from "./field-errors";
import { PreviewResult } from "./preview-result";
import { VersionResultNotice } from "./version-result-notice";

const DEFAULT_PER_LEVEL = 50;

/**
 * Generate tasks per difficulty level from the family's procedural generator; Preview
 * shows what freezing would save (nothing is stored), Freeze saves a version.
 */
export function GenerateVersionForm({
  familyId,
  levels,
  nearDuplicatesDefault,
}: {
  familyId: number;
  levels: number[];
  /** The server's default, so the form starts where a request that says nothing would. */
  nearDuplicatesDefault: boolean;
}) {
  const [counts, setCounts] = useState<Record<string, string>>(() =>
    Object.fromEntries(levels.map((l) => [String(l), String(DEFAULT_PER_LEVEL)])),
  );
  const [seed, setSeed] = useState("0");
  const [nearDuplicates, setNearDuplicates] = useState(nearDuplicatesDefault);
  const [note, setNote] = useState("");
  const [previewed, setPreviewed] = useState<string | null>(null);
  const [result, setResult] = useState<VersionResult | null>(null);
  const preview = usePreviewFamily(familyId);
  const generate = useGenerateVersion(familyId);

  const input: GenerateInput = {
    counts: Object.fromEntries(
      Object.entries(counts)
        .filter(([, v]) => v !== "" && Number(v) > 0)
        .map(([k, v]) => [k, Number(v)]),
    ),
    seed: Number(seed) || 0,
    near_duplicates: nearDuplicates,
  };
  const signature = JSON.stringify(input);
  const total = Object.values(input.counts).reduce((a, b) => a + b, 0);
  const errors = { ...fieldErrors(preview.error), ...fieldErrors(generate.error) };

  function runPreview() {
    setResult(null);
    preview.mutate(input, { onSuccess: () => setPreviewed(signature) });
  }

  function freeze(event: FormEvent) {
    event.preventDefault();
    generate.mutate({ ...input, note: note.trim() }, { onSuccess: setResult });
  }

  return (
    <form className="stack" onSubmit={freeze} aria-label="Generate a version">
      <fieldset className="param-fieldset">
        <legend>Tasks per difficulty level</legend>
        <div className="form-row">
          {levels.map((level) => (
            <div className="field" key={level} style={{ flex: "0 1 84px" }}>
              <label htmlFor={`count-${level}`}>Level {level}</label>
              <input
                id={`count-${level}`}
                className="input"
                type="number"
                min={0}
                max={100000}
                value={counts[String(level)] ?? ""}
                onChange={(e) => setCounts({ ...counts, [String(level)]: e.target.value })}
              />
            </div>
          ))}
          <span className="subtle" style={{ paddingBottom: 6 }}>
            = {total} tasks
          </span>
        </div>
        {errors.counts && <span className="field-error">{errors.counts}</span>}
      </fieldset>
      <div className="form-row">
        <div className="field" style={{ flex: "0 1 120px" }}>
          <label htmlFor="generate-seed">Seed</label>
          <input
            id="generate-seed"
            className="input"
            type="number"
            value={seed}
            aria-invalid={errors.seed ? true : undefined}
            onChange={(e) => setSeed(e.target.value)}
          />
          {errors.seed && <span className="field-error">{errors.seed}</span>}
        </div>
        <div className="field" style={{ flex: "2 1 260px" }}>
          <label htmlFor="generate-note">Note</label>
          <input
            id="generate-note"
            className="input"
            placeholder="Why this version (optional)"
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        </div>
        <label className="tf-check" style={{ paddingBottom: 6 }}>
          <input type="checkbox" checked={nearDuplicates} onChange={(e) => setNearDuplicates(e.target.checked)} />
          Remove near-duplicates
        </label>
      </div>
      <div className="row">
        <button type="button" className="btn" onClick={runPreview} disabled={preview.isPending || total === 0}>
          {preview.isPending ? "Previewing…" : "Preview"}
        </button>
        <button type="submit" className="btn btn-primary" disabled={generate.isPending || total === 0}>
          {generate.isPending ? "Freezing…" : "Freeze version"}
        </button>
        {preview.data && previewed !== signature && (
          <span className="subtle">The settings changed since this preview.</span>
        )}
      </div>
      {!errors.counts && !errors.seed && <ErrorMessage error={generate.error ?? preview.error} />}
      {result && <VersionResultNotice result={result} familyId={familyId} />}
      {preview.data && <PreviewResult preview={preview.data} levels={levels} />}
    </form>
  );
}
