// Which verifier the playground runs: the builder's draft, or a saved version of any verifier
// of the team, sent by id so the server runs exactly what was saved.
import { Field } from "@/components/ui/field";

import { useVerifiers } from "../api/get-verifiers";
import { useVersions } from "../api/get-versions";

export type SpecSource = { kind: "draft" } | { kind: "saved"; verifierId: number; versionId: number | null };

/** The saved version a source names: its own choice, else the verifier's latest. */
export function useSavedVersion(source: SpecSource) {
  const versions = useVersions(source.kind === "saved" ? source.verifierId : null);
  if (source.kind !== "saved") return { version: null, versions: undefined };
  const list = versions.data ?? [];
  const version = list.find((v) => v.id === source.versionId) ?? list[0] ?? null;
  return { version, versions };
}

export function SpecSourcePicker({
  source,
  currentVerifierId,
  onChange,
}: {
  source: SpecSource;
  currentVerifierId: number;
  onChange: (source: SpecSource) => void;
}) {
  const verifiers = useVerifiers();
  const { version, versions } = useSavedVersion(source);
  return (
    <fieldset className="vf-source" aria-label="Verifier to run">
      <span className="subtle">Run</span>
      <label className="vf-check">
        <input
          type="radio"
          name="playground-source"
          checked={source.kind === "draft"}
          onChange={() => onChange({ kind: "draft" })}
        />
        the builder’s draft
      </label>
      <label className="vf-check">
        <input
          type="radio"
          name="playground-source"
          checked={source.kind === "saved"}
          onChange={() => onChange({ kind: "saved", verifierId: currentVerifierId, versionId: null })}
        />
        a saved version
      </label>
      {source.kind === "saved" && (
        <div className="form-row">
          <Field id="playground-verifier" label="Verifier">
            <select
              id="playground-verifier"
              className="select"
              value={source.verifierId}
              onChange={(e) => onChange({ kind: "saved", verifierId: Number(e.target.value), versionId: null })}
            >
              {(verifiers.data ?? []).map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name}
                </option>
              ))}
            </select>
          </Field>
          <Field id="playground-version" label="Version">
            <select
              id="playground-version"
              className="select"
              value={version?.id ?? ""}
              disabled={!versions?.data?.length}
              onChange={(e) => onChange({ ...source, versionId: Number(e.target.value) })}
            >
              {versions?.data?.length === 0 && <option value="">no saved version</option>}
              {(versions?.data ?? []).map((v) => (
                <option key={v.id} value={v.id}>
                  v{v.number}
                  {v.note ? ` · ${v.note}` : ""}
                </option>
              ))}
            </select>
          </Field>
        </div>
      )}
    </fieldset>
  );
}
