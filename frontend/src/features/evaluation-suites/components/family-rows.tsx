import { FormField } from "@/components/ui/form-field";

import type { PoolVersion, Verifier } from "../api/types";

import { newRow, type FamilyRow } from "./form-state";

type ErrorFor = (path: string) => string | undefined;

/** The verifiers made for the version's family kind first; each offers its latest version, and
 * a version already chosen that is no longer the latest stays listed. */
function VerifierOptions({ verifiers, value }: { verifiers: Verifier[]; value: number | null }) {
  const offered = verifiers.filter((v) => v.latest_version);
  const listed = offered.some((v) => v.latest_version!.id === value);
  return (
    <>
      <option value="">Choose a verifier version…</option>
      {value !== null && !listed && <option value={value}>verifier version {value}</option>}
      {offered.map((v) => (
        <option key={v.id} value={v.latest_version!.id}>
          {v.name} · v{v.latest_version!.number}
          {v.family_kind ? ` (for ${v.family_kind})` : ""}
        </option>
      ))}
    </>
  );
}

function Row({
  index,
  row,
  versions,
  verifiers,
  errorFor,
  disabled,
  onChange,
  onRemove,
}: {
  index: number;
  row: FamilyRow;
  versions: PoolVersion[];
  verifiers: Verifier[];
  errorFor: ErrorFor;
  disabled?: boolean;
  onChange: (row: FamilyRow) => void;
  onRemove?: () => void;
}) {
  const at = (field: string) => errorFor(`families[${index}].${field}`);
  const toId = (text: string) => (text ? Number(text) : null);
  return (
    <fieldset className="es-family" aria-label={`Family ${index + 1}`}>
      <FormField className="es-field" label="Pool version" hint="Its held-out split is evaluated." error={at("pool_version")} disabled={disabled}>
        {(control) => (
          <select {...control} className="select" value={row.poolVersion ?? ""} onChange={(e) => onChange({ ...row, poolVersion: toId(e.target.value) })}>
            <option value="">Choose a pool version…</option>
            {versions.map((v) => (
              <option key={v.id} value={v.id}>
                {v.family_slug} · v{v.number} ({v.held_out_count} held-out)
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField className="es-field" label="Verifier version" error={at("verifier_version")} disabled={disabled}>
        {(control) => (
          <select {...control} className="select" value={row.verifierVersion ?? ""} onChange={(e) => onChange({ ...row, verifierVersion: toId(e.target.value) })}>
            <VerifierOptions verifiers={verifiers} value={row.verifierVersion} />
          </select>
        )}
      </FormField>
      <FormField className="es-field" label="Threshold (points)" hint="A drop past it is a regression." error={at("threshold_pts")} disabled={disabled}>
        {(control) => (
          <input {...control} className="input" inputMode="decimal" value={row.threshold} onChange={(e) => onChange({ ...row, threshold: e.target.value })} />
        )}
      </FormField>
      {onRemove && !disabled && (
        <button type="button" className="btn btn-ghost es-remove" onClick={onRemove} aria-label={`Remove family ${index + 1}`}>
          Remove
        </button>
      )}
    </fieldset>
  );
}

/** Which held-out sets are evaluated: a pool version, its verifier version and its threshold each. */
export function FamilyRows({
  rows,
  versions,
  verifiers,
  errorFor,
  disabled,
  onChange,
}: {
  rows: FamilyRow[];
  versions: PoolVersion[];
  verifiers: Verifier[];
  errorFor: ErrorFor;
  disabled?: boolean;
  onChange: (rows: FamilyRow[]) => void;
}) {
  const replace = (index: number, row: FamilyRow) => onChange(rows.map((r, i) => (i === index ? row : r)));
  return (
    <div className="stack es-families" role="group" aria-label="Families">
      {rows.map((row, index) => (
        <Row
          key={index}
          index={index}
          row={row}
          versions={versions}
          verifiers={verifiers}
          errorFor={errorFor}
          disabled={disabled}
          onChange={(next) => replace(index, next)}
          onRemove={rows.length > 1 ? () => onChange(rows.filter((_, i) => i !== index)) : undefined}
        />
      ))}
      {errorFor("families") && <span className="field-error">{errorFor("families")}</span>}
      {!disabled && (
        <div>
          <button type="button" className="btn" onClick={() => onChange([...rows, newRow()])}>
            Add a family
          </button>
        </div>
      )}
    </div>
  );
}
