import { useState } from "react";

import { ErrorMessage } from "@/components/ui/error-message";

import { useImportDataset, type BundledDataset } from "../api/import-dataset";
import type { VersionResult } from "../api/version-request";

import { VersionResultNotice } from "./version-result-notice";

/** The bundled public set each kind can import. */
export const BUNDLED_DATASETS: Record<string, { dataset: BundledDataset; label: string; about: string }> = {
  "python-function": {
    dataset: "humaneval",
    label: "HumanEval",
    about: "164 hand-written Python problems with unit tests (OpenAI, 2021).",
  },
  "math-word": {
    dataset: "gsm8k",
    label: "GSM8K",
    about: "Grade-school math word problems with a numeric final answer (OpenAI, 2021).",
  },
};

export function DatasetVersionForm({ familyId, kind }: { familyId: number; kind: string }) {
  const bundled = BUNDLED_DATASETS[kind];
  const importDataset = useImportDataset(familyId);
  const [result, setResult] = useState<VersionResult | null>(null);
  if (!bundled) return <p className="subtle">No bundled dataset for this kind.</p>;
  return (
    <div className="stack">
      <p>
        <strong>{bundled.label}</strong> <span className="muted">— {bundled.about}</span>
      </p>
      <div>
        <button
          type="button"
          className="btn btn-primary"
          disabled={importDataset.isPending}
          onClick={() => importDataset.mutate(bundled.dataset, { onSuccess: setResult })}
        >
          {importDataset.isPending ? "Importing…" : `Import ${bundled.label}`}
        </button>
      </div>
      <ErrorMessage error={importDataset.error} />
      {result && <VersionResultNotice result={result} familyId={familyId} />}
    </div>
  );
}
