import { useId, useState } from "react";

import type { Family, FamilyKind } from "../api/types";

import { BUNDLED_DATASETS, DatasetVersionForm } from "./dataset-version-form";
import { GenerateVersionForm } from "./generate-version-form";
import { UploadVersionForm } from "./upload-version-form";

type Tab = "generate" | "upload" | "dataset";

export function NewVersionPanel({ family, kind }: { family: Family; kind: FamilyKind | undefined }) {
  const tabs: { id: Tab; label: string; enabled: boolean }[] = [
    { id: "generate", label: "Generate", enabled: kind?.procedural ?? false },
    { id: "upload", label: "Upload", enabled: kind?.importable ?? true },
    { id: "dataset", label: "Bundled dataset", enabled: family.kind in BUNDLED_DATASETS },
  ];
  const available = tabs.filter((t) => t.enabled);
  const [chosen, setChosen] = useState<Tab | null>(null);
  const active = chosen ?? available[0]?.id ?? "upload";
  const baseId = useId();
  const levels = kind?.difficulty_levels ?? [1, 2, 3];

  return (
    <>
      <div className="tf-tabs" role="tablist" aria-label="New version from">
        {available.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${baseId}-${t.id}`}
            className="tf-tab"
            aria-selected={active === t.id}
            aria-controls={`${baseId}-${t.id}-panel`}
            onClick={() => setChosen(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div className="card-body" role="tabpanel" id={`${baseId}-${active}-panel`} aria-labelledby={`${baseId}-${active}`}>
        {active === "generate" && (
          <GenerateVersionForm familyId={family.id} levels={levels} nearDuplicatesDefault={family.version_defaults.near_duplicates} />
        )}
        {active === "upload" && <UploadVersionForm family={family} kind={kind} />}
        {active === "dataset" && <DatasetVersionForm familyId={family.id} kind={family.kind} />}
      </div>
    </>
  );
}
