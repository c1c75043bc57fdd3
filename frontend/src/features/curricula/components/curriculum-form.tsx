import type { ReactNode } from "react";

import { trainLevels, type PoolVersion } from "../api/types";

import { newEntry, type ConfigState, type EntryState } from "./config-state";

export type ErrorLookup = (path: string) => string | undefined;

function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <span className="field-error" id={id}>
      {message}
    </span>
  ) : null;
}

function NumberField({
  id,
  label,
  value,
  onChange,
  error,
  hint,
  step = "any",
  min,
  max,
  width = 110,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: ReactNode;
  step?: number | "any";
  min?: number;
  max?: number;
  width?: number;
}) {
  return (
    <div className="field cu-field" style={{ flex: `0 0 ${width}px` }}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="input"
        type="number"
        step={step}
        min={min}
        max={max}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && !error && <span className="field-hint">{hint}</span>}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

function versionLabel(v: PoolVersion): string {
  return `${v.family_slug} · v${v.number} (${v.train_count} train)`;
}

function FamilyRow({
  index,
  entry,
  versions,
  errorFor,
  onChange,
  onRemove,
}: {
  index: number;
  entry: EntryState;
  versions: PoolVersion[];
  errorFor: ErrorLookup;
  onChange: (entry: EntryState) => void;
  onRemove: () => void;
}) {
  const path = `config.families[${index}]`;
  const version = versions.find((v) => v.id === entry.version);
  const available = version ? trainLevels(version) : [];
  const chosen = entry.levels ?? available;
  const bySlug = new Map<string, PoolVersion[]>();
  for (const v of versions) bySlug.set(v.family_slug, [...(bySlug.get(v.family_slug) ?? []), v]);
  const idBase = `cu-family-${index}`;
  const initialSum = entry.initial?.reduce((sum, v) => sum + (Number(v) || 0), 0);

  function setLevels(levels: number[]) {
    const same = levels.length === available.length && levels.every((l, i) => l === available[i]);
    onChange({ ...entry, levels: same ? null : levels, initial: null });
  }

  return (
    <fieldset className="cu-family" aria-label={`Family ${index + 1}`}>
      <div className="form-row" style={{ alignItems: "flex-start" }}>
        <div className="field cu-field" style={{ flex: "1 1 240px" }}>
          <label htmlFor={`${idBase}-version`}>Pool version</label>
          <select
            id={`${idBase}-version`}
            className="select"
            value={entry.version ?? ""}
            aria-invalid={errorFor(`${path}.version`) ? true : undefined}
            onChange={(e) =>
              onChange({ ...entry, version: e.target.value ? Number(e.target.value) : null, levels: null, initial: null })
            }
          >
            <option value="">Choose a version…</option>
            {[...bySlug.entries()].map(([slug, list]) => (
              <optgroup key={slug} label={slug}>
                {[...list].sort((a, b) => b.number - a.number).map((v) => (
                  <option key={v.id} value={v.id}>
                    {versionLabel(v)}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
          <FieldError id={`${idBase}-version-error`} message={errorFor(`${path}.version`) ?? errorFor(path)} />
        </div>
        <NumberField
          id={`${idBase}-weight`}
          label="Weight"
          value={entry.weight}
          min={0}
          step={0.1}
          width={90}
          error={errorFor(`${path}.weight`)}
          onChange={(weight) => onChange({ ...entry, weight })}
        />
        <fieldset className="cu-levels" aria-describedby={errorFor(`${path}.levels`) ? `${idBase}-levels-error` : undefined}>
          <legend>Levels</legend>
          <div className="row" style={{ flexWrap: "wrap" }}>
            {available.length === 0 && <span className="subtle">Choose a version</span>}
            {available.map((level) => (
              <label key={level} className="cu-level">
                <input
                  type="checkbox"
                  aria-label={`Level ${level}`}
                  checked={chosen.includes(level)}
                  onChange={(e) =>
                    setLevels(e.target.checked ? available.filter((l) => l === level || chosen.includes(l)) : chosen.filter((l) => l !== level))
                  }
                />
                {level}
              </label>
            ))}
          </div>
          <FieldError id={`${idBase}-levels-error`} message={errorFor(`${path}.levels`)} />
        </fieldset>
        <button type="button" className="btn btn-sm btn-ghost" style={{ marginTop: 20 }} onClick={onRemove} aria-label={`Remove family ${index + 1}`}>
          Remove
        </button>
      </div>
      {version && available.length === 1 && (
        <div className="alert alert-warning" role="status">
          Every train task of this version is at level {available[0]}, so the curriculum has nothing to move between. Grade the
          version first (Measure difficulty on its family page), or import a difficulty column.
        </div>
      )}
      {chosen.length > 0 && (
        <div className="cu-initial">
          <label className="cu-check">
            <input
              type="checkbox"
              checked={entry.initial !== null}
              onChange={(e) =>
                onChange({
                  ...entry,
                  initial: e.target.checked ? chosen.map((_, i) => (i === 0 ? "1" : "0")) : null,
                })
              }
            />
            Set the starting distribution
          </label>
          {entry.initial && (
            <div className="row" style={{ flexWrap: "wrap", gap: "var(--space-2)" }}>
              {chosen.map((level, i) => (
                <div className="field cu-field" key={level} style={{ width: 76 }}>
                  <label htmlFor={`${idBase}-initial-${level}`}>P(level {level})</label>
                  <input
                    id={`${idBase}-initial-${level}`}
                    className="input"
                    type="number"
                    min={0}
                    max={1}
                    step={0.05}
                    value={entry.initial?.[i] ?? ""}
                    onChange={(e) => {
                      const initial = [...(entry.initial ?? [])];
                      initial[i] = e.target.value;
                      onChange({ ...entry, initial });
                    }}
                  />
                </div>
              ))}
              <span className={Math.abs((initialSum ?? 0) - 1) > 1e-6 ? "field-error" : "subtle"} style={{ alignSelf: "flex-end", paddingBottom: 6 }}>
                sum {initialSum?.toFixed(2)}
              </span>
            </div>
          )}
          <FieldError id={`${idBase}-initial-error`} message={errorFor(`${path}.initial`)} />
        </div>
      )}
    </fieldset>
  );
}

/** The mixture of pool versions and the dynamic policy that keeps success inside the band. */
export function CurriculumConfigForm({
  state,
  versions,
  errorFor,
  onChange,
}: {
  state: ConfigState;
  versions: PoolVersion[];
  errorFor: ErrorLookup;
  onChange: (state: ConfigState) => void;
}) {
  const set = (patch: Partial<ConfigState>) => onChange({ ...state, ...patch });
  const bandError = errorFor("config.band") ?? errorFor("config.band[0]") ?? errorFor("config.band[1]");
  return (
    <div className="stack">
      <section className="stack" style={{ gap: "var(--space-2)" }} aria-label="Families">
        <h3 className="cu-heading">Families</h3>
        {state.families.length === 0 && (
          <p className="subtle">Add at least one pool version to sample tasks from.</p>
        )}
        {state.families.map((entry, i) => (
          <FamilyRow
            key={entry.key}
            index={i}
            entry={entry}
            versions={versions}
            errorFor={errorFor}
            onChange={(next) => set({ families: state.families.map((f, j) => (j === i ? next : f)) })}
            onRemove={() => set({ families: state.families.filter((_, j) => j !== i) })}
          />
        ))}
        <FieldError id="cu-families-error" message={errorFor("config.families")} />
        <div>
          <button
            type="button"
            className="btn btn-sm"
            disabled={versions.length === 0}
            onClick={() => set({ families: [...state.families, newEntry(versions[0]?.id ?? null)] })}
          >
            Add family
          </button>
          {versions.length === 0 && <span className="subtle"> Freeze a pool version of a task family first.</span>}
        </div>
      </section>
      <section className="stack" style={{ gap: "var(--space-2)" }} aria-label="Policy">
        <h3 className="cu-heading">Policy</h3>
        <div className="form-row" style={{ alignItems: "flex-start" }}>
          <fieldset className="cu-band" aria-describedby={bandError ? "cu-band-error" : undefined}>
            <legend>Target success band</legend>
            <div className="row">
              {(["Low", "High"] as const).map((end, i) => (
                <span key={end} className="row">
                  {i === 1 && <span className="subtle">to</span>}
                  <input
                    id={`cu-band-${end.toLowerCase()}`}
                    className="input"
                    type="number"
                    min={0}
                    max={1}
                    step={0.05}
                    aria-label={`Band ${end.toLowerCase()}`}
                    aria-invalid={bandError ? true : undefined}
                    value={end === "Low" ? state.bandLow : state.bandHigh}
                    onChange={(e) => set(end === "Low" ? { bandLow: e.target.value } : { bandHigh: e.target.value })}
                  />
                </span>
              ))}
            </div>
            <BandBar low={Number(state.bandLow)} high={Number(state.bandHigh)} />
            <FieldError id="cu-band-error" message={bandError} />
          </fieldset>
          <NumberField id="cu-floor" label="Floor" value={state.floor} min={0} max={1} step={0.01} error={errorFor("config.floor")} hint="Min. probability per level" onChange={(floor) => set({ floor })} />
          <NumberField id="cu-window" label="Window" value={state.window} min={1} step={1} error={errorFor("config.window")} hint="Task outcomes in the rolling rate (not steps)" onChange={(window) => set({ window })} />
          <NumberField id="cu-step" label="Step" value={state.step} min={0} max={1} step={0.05} error={errorFor("config.step")} hint="Shift per adjustment" onChange={(step) => set({ step })} />
          <label className="cu-check" style={{ marginTop: 22 }}>
            <input type="checkbox" checked={state.dynamic} onChange={(e) => set({ dynamic: e.target.checked })} />
            Dynamic
          </label>
        </div>
        <FieldError id="cu-dynamic-error" message={errorFor("config.dynamic")} />
      </section>
    </div>
  );
}

/** The band drawn on a 0–100% track, so its width reads at a glance. */
function BandBar({ low, high }: { low: number; high: number }) {
  const valid = Number.isFinite(low) && Number.isFinite(high) && low >= 0 && high <= 1 && low < high;
  return (
    <div className="cu-bandbar" aria-hidden="true">
      {valid && <div className="cu-bandbar-fill" style={{ left: `${low * 100}%`, width: `${(high - low) * 100}%` }} />}
    </div>
  );
}
