// Steering a running run's curriculum: its target band, each family's mixture weight and its
// difficulty distribution. Only what was edited is sent; the worker applies it at its next step
// boundary, the change is audited and appears on the charts as a marker.
import { useState } from "react";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";
import { isApiError } from "@/lib/api-client";

import { useChangeCurriculum, type CurriculumChange } from "../api/change-curriculum";
import { useRunCurriculum, type RunCurriculum } from "../api/get-run-curriculum";
import type { Run } from "../api/types";

type FamilyForm = { weight: string; shares: string[] };
type Form = { low: string; high: string; families: Record<string, FamilyForm> };

function percent(p: number | null | undefined): string {
  return p === null || p === undefined ? "" : String(Math.round(p * 1000) / 10);
}

export function formFrom(curriculum: RunCurriculum): Form {
  return {
    low: String(curriculum.band[0]),
    high: String(curriculum.band[1]),
    families: Object.fromEntries(
      curriculum.families.map((f) => [f.name, { weight: String(f.weight), shares: f.distribution.map(percent) }]),
    ),
  };
}

function asNumber(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? Number.NaN : Number(trimmed);
}

/** What the form changes against the curriculum it was filled from; null when nothing. */
export function changeFrom(form: Form, start: Form): CurriculumChange | null {
  const change: CurriculumChange = {};
  if (form.low !== start.low || form.high !== start.high) change.band = [asNumber(form.low), asNumber(form.high)];
  const families: NonNullable<CurriculumChange["families"]> = {};
  for (const [name, fam] of Object.entries(form.families)) {
    const before = start.families[name];
    const edit: { weight?: number; distribution?: number[] } = {};
    if (fam.weight !== before?.weight) edit.weight = asNumber(fam.weight);
    if (fam.shares.some((s, i) => s !== before?.shares[i])) edit.distribution = fam.shares.map((s) => asNumber(s || "0"));
    if (Object.keys(edit).length > 0) families[name] = edit;
  }
  if (Object.keys(families).length > 0) change.families = families;
  return Object.keys(change).length > 0 ? change : null;
}

function FieldError({ error, field }: { error: unknown; field: string }) {
  if (!isApiError(error)) return null;
  const messages = error.messagesFor(field);
  return messages.length ? (
    <div className="field-error" role="alert">
      {messages.join(" ")}
    </div>
  ) : null;
}

function FamilyRow({
  family,
  form,
  onChange,
  error,
  disabled,
}: {
  family: RunCurriculum["families"][number];
  form: FamilyForm;
  onChange: (f: FamilyForm) => void;
  error: unknown;
  disabled: boolean;
}) {
  return (
    <fieldset className="rn-cc-family" aria-label={`Family ${family.name}`} disabled={disabled}>
      <legend className="mono">{family.name}</legend>
      <label className="rn-cc-weight">
        Mixture weight
        <input className="input" inputMode="decimal" value={form.weight} onChange={(e) => onChange({ ...form, weight: e.target.value })} />
      </label>
      <FieldError error={error} field={`families.${family.name}.weight`} />
      <div className="rn-cc-levels" role="group" aria-label={`Difficulty distribution of ${family.name}, percent per level`}>
        {family.levels.map((level, i) => (
          <label key={level} className="rn-cc-level">
            <span>Level {level}</span>
            <input
              className="input"
              inputMode="decimal"
              aria-label={`${family.name} level ${level} %`}
              value={form.shares[i] ?? ""}
              placeholder="0"
              onChange={(e) => onChange({ ...form, shares: form.shares.map((s, j) => (j === i ? e.target.value : s)) })}
            />
            <span className="rn-cc-bar" aria-hidden="true">
              <span style={{ height: `${Math.min(100, Math.max(0, family.distribution[i] ?? 0) * 100)}%` }} />
            </span>
          </label>
        ))}
      </div>
      <FieldError error={error} field={`families.${family.name}.distribution`} />
    </fieldset>
  );
}

function CurriculumForm({ run, curriculum, disabled }: { run: Run; curriculum: RunCurriculum; disabled: boolean }) {
  const change = useChangeCurriculum(run.id);
  const [start, setStart] = useState(() => formFrom(curriculum));
  const [form, setForm] = useState(start);
  const edited = changeFrom(form, start);
  const submit = () => {
    if (!edited) return;
    change.mutate(edited, { onSuccess: () => setStart(form) });
  };
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <fieldset className="rn-cc-band" disabled={disabled} aria-label="Target band">
        <legend>Target band of the rolling success rate</legend>
        <label>
          Low
          <input className="input" inputMode="decimal" value={form.low} onChange={(e) => setForm({ ...form, low: e.target.value })} />
        </label>
        <label>
          High
          <input className="input" inputMode="decimal" value={form.high} onChange={(e) => setForm({ ...form, high: e.target.value })} />
        </label>
      </fieldset>
      <FieldError error={change.error} field="band" />
      {curriculum.families.map((family) => (
        <FamilyRow
          key={family.name}
          family={family}
          form={form.families[family.name] ?? { weight: "", shares: [] }}
          error={change.error}
          disabled={disabled}
          onChange={(f) => setForm({ ...form, families: { ...form.families, [family.name]: f } })}
        />
      ))}
      <FieldError error={change.error} field="families" />
      {isApiError(change.error) && change.error.messagesFor(null).length > 0 && <ErrorMessage error={change.error} />}
      {change.isSuccess && !edited && (
        <div className="subtle" role="status">
          Sent: the worker applies it at its next step boundary.
        </div>
      )}
      <div className="rn-cc-actions">
        <button type="submit" className="btn btn-primary" disabled={disabled || !edited || change.isPending}>
          {change.isPending ? "Sending…" : "Apply at the next step"}
        </button>
        {edited && (
          <button type="button" className="btn btn-ghost" onClick={() => setForm(start)}>
            Undo edits
          </button>
        )}
      </div>
    </form>
  );
}

export function CurriculumControl({ run }: { run: Run }) {
  const curriculum = useRunCurriculum(run.id);
  const finished = ["succeeded", "failed", "cancelled"].includes(run.state);
  return (
    <Card
      title="Steer the curriculum"
      description={
        finished
          ? "The run has finished: its curriculum can no longer change."
          : `Changes apply at the worker's next step boundary, are kept in its checkpoints, and appear on the charts. Shares are percent per level (normalised; the floor of ${curriculum.data ? curriculum.data.floor * 100 : "…"}% still applies)${curriculum.data?.dynamic ? "; the dynamic policy keeps adapting from the new distribution" : ""}.`
      }
    >
      <div className="card-body">
        <QueryPlaceholder query={curriculum} />
        {curriculum.data && <CurriculumForm run={run} curriculum={curriculum.data} disabled={finished} />}
      </div>
    </Card>
  );
}
