import { useState, type FormEvent } from "react";

import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";
import { isApiError } from "@/lib/api-client";

import { useCreateVersion, type CreateVersionResult } from "../api/create-version";
import { mapSpecErrors, NO_ERRORS, type SpecErrors } from "../lib/field-errors";
import {
  addLayer,
  moveLayer,
  removeLayer,
  setParam,
  setWeight,
  stageWarnings,
  toSpec,
  updateLayer,
  type Draft,
} from "../lib/spec";
import { STAGES, type VerifierKinds } from "../types";
import { LayerCard } from "./layer-card";
import { LayerCatalogue } from "./layer-catalogue";
import { RewardEditor } from "./reward-editor";
import { StageChip } from "./visuals";

function withoutParamError(errors: SpecErrors, uid: string, key: string): SpecErrors {
  const layer = errors.layers[uid];
  if (!layer?.params[key]) return errors;
  const params = { ...layer.params };
  delete params[key];
  return { ...errors, layers: { ...errors.layers, [uid]: { ...layer, params } } };
}

function Pipeline({ draft, kinds }: { draft: Draft; kinds: VerifierKinds }) {
  const stageOf = (kind: string) => kinds.layers.find((k) => k.kind === kind)?.stage;
  const counts = STAGES.map((stage) => [stage, draft.layers.filter((l) => stageOf(l.kind) === stage).length] as const);
  return (
    <div className="vf-pipeline" aria-label="Layers per stage">
      {counts.map(([stage, n], i) => (
        <span key={stage} className={`row vf-stage-${stage}`} style={{ gap: 4, opacity: n ? 1 : 0.45 }}>
          {i > 0 && <span aria-hidden="true">{i < 3 ? "→" : "·"}</span>}
          <StageChip stage={stage} />
          <span className="mono">{n}</span>
        </span>
      ))}
    </div>
  );
}

/** Layers placed below a layer of a later stage: the order runs them, but skips them whenever
 * that layer fails, which hides why a response failed. */
function StageOrderWarnings({ draft, kinds }: { draft: Draft; kinds: VerifierKinds }) {
  const warnings = stageWarnings(draft.layers, kinds.layers);
  if (warnings.length === 0) return null;
  return (
    <div className="alert alert-warning" role="status" aria-label="Layer order">
      <strong>Out of stage order</strong> (syntax → semantics → boundary → constraints / judge):
      <ul className="vf-warnings">
        {warnings.map((warning) => (
          <li key={warning}>{warning}</li>
        ))}
      </ul>
    </div>
  );
}

function SaveBar({
  verifierId,
  latestNumber,
  draft,
  dirty,
  onSaved,
  onErrors,
}: {
  verifierId: number;
  latestNumber: number | null;
  draft: Draft;
  dirty: boolean;
  onSaved: (result: CreateVersionResult) => void;
  onErrors: (errors: SpecErrors) => void;
}) {
  const [note, setNote] = useState("");
  const save = useCreateVersion(verifierId, latestNumber);
  const [outcome, setOutcome] = useState<CreateVersionResult | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    setOutcome(null);
    onErrors(NO_ERRORS);
    save.mutate(
      { spec: toSpec(draft), note: note.trim() },
      {
        onSuccess: (result) => {
          setOutcome(result);
          if (result.created) setNote("");
          onSaved(result);
        },
        onError: (error) => {
          if (isApiError(error) && error.status === 400) onErrors(mapSpecErrors(error.errors, draft.layers));
        },
      },
    );
  }

  const rejected = isApiError(save.error) && save.error.status === 400;
  return (
    <form className="vf-savebar" onSubmit={submit} aria-label="Save version">
      <Field id="version-note" label="Note for the new version">
        <input
          id="version-note"
          className="input"
          placeholder="What changed and why"
          value={note}
          onChange={(e) => setNote(e.target.value)}
        />
      </Field>
      <div className="stack" style={{ gap: 4, alignItems: "flex-end" }}>
        <span className="subtle" style={{ fontSize: "var(--text-sm)" }} role="status">
          {save.isPending
            ? "Saving…"
            : rejected
              ? null
              : outcome
                ? outcome.created
                  ? `Saved as version ${outcome.version.number}.`
                  : `No change: the spec is identical to version ${outcome.version.number}.`
                : dirty
                  ? "Unsaved changes"
                  : latestNumber
                    ? `Editing version ${latestNumber}`
                    : "No version yet"}
        </span>
        {rejected && <span className="field-error">The server rejected the spec; see the marked fields.</span>}
        {save.error && !rejected ? <ErrorMessage error={save.error} /> : null}
        <button type="submit" className="btn btn-primary" disabled={save.isPending || draft.layers.length === 0}>
          Save as new version
        </button>
      </div>
    </form>
  );
}

export function SpecBuilder({
  verifierId,
  latestNumber,
  draft,
  dirty,
  kinds,
  onChange,
  onReset,
}: {
  verifierId: number;
  latestNumber: number | null;
  draft: Draft;
  dirty: boolean;
  kinds: VerifierKinds;
  onChange: (draft: Draft) => void;
  onReset: () => void;
}) {
  const [errors, setErrors] = useState<SpecErrors>(NO_ERRORS);
  const kindOf = (kind: string) => kinds.layers.find((k) => k.kind === kind);
  const extractor = kinds.extractors.find((e) => e.name === draft.extract);
  const layerListErrors = errors.fields["layers"] ?? [];

  return (
    <div className="stack">
      {errors.general.length > 0 && (
        <div className="alert alert-error" role="alert">
          {errors.general.map((m) => (
            <div key={m}>{m}</div>
          ))}
        </div>
      )}
      <div className="vf-builder">
        <Card
            title={`Layers (${draft.layers.length})`}
            description="Run top to bottom; a layer runs only when the ones above passed, unless they continue on failure."
            actions={
              dirty && (
                <button type="button" className="btn btn-sm" onClick={onReset}>
                  Discard changes
                </button>
              )
            }
          >
            <div className="card-body stack" style={{ gap: "var(--space-3)" }}>
              <div className="vf-layers-top">
                <Field id="extractor" label="Extractor" hint={extractor?.description}>
                  <select
                    id="extractor"
                    className="select"
                    value={draft.extract}
                    aria-invalid={errors.fields["extract"] ? true : undefined}
                    onChange={(e) => onChange({ ...draft, extract: e.target.value })}
                  >
                    {kinds.extractors.map((e) => (
                      <option key={e.name} value={e.name}>
                        {e.name}
                      </option>
                    ))}
                  </select>
                  {errors.fields["extract"]?.map((m) => (
                    <span key={m} className="field-error" role="alert">
                      {m}
                    </span>
                  ))}
                </Field>
                <Pipeline draft={draft} kinds={kinds} />
              </div>
              <StageOrderWarnings draft={draft} kinds={kinds} />
              {layerListErrors.map((m) => (
                <div key={m} className="field-error" role="alert">
                  layers: {m}
                </div>
              ))}
              {draft.layers.length === 0 ? (
                <EmptyState title="No layers yet" icon="verifiers">
                  Add layers from the catalogue: a syntax check first, then the behaviour that matters.
                </EmptyState>
              ) : (
                <ol className="vf-layers" aria-label="Layers">
                  {draft.layers.map((layer, index) => (
                    <LayerCard
                      key={layer.uid}
                      layer={layer}
                      index={index}
                      count={draft.layers.length}
                      kind={kindOf(layer.kind)}
                      extractor={draft.extract}
                      errors={errors.layers[layer.uid]}
                      onChange={(change) => onChange(updateLayer(draft, layer.uid, change))}
                      onParam={(key, value) => {
                        setErrors((current) => withoutParamError(current, layer.uid, key));
                        onChange(setParam(draft, layer.uid, key, value));
                      }}
                      onMove={(offset) => onChange(moveLayer(draft, layer.uid, offset))}
                      onRemove={() => onChange(removeLayer(draft, layer.uid))}
                    />
                  ))}
                </ol>
              )}
            </div>
          </Card>
        <div className="stack">
          <Card title="Add a layer" description="From the server's catalogue; a new layer goes at the end of its stage.">
            <LayerCatalogue kinds={kinds.layers} onAdd={(kind) => onChange(addLayer(draft, kind, kinds.layers))} />
          </Card>
          <Card title="Reward" description="How layer results become one scalar reward.">
            <div className="card-body">
              <RewardEditor
                reward={draft.reward}
                errors={errors}
                onWeight={(part, value) => onChange(setWeight(draft, part, value))}
                onFailureReward={(value) => onChange({ ...draft, reward: { ...draft.reward, failure_reward: value } })}
              />
            </div>
          </Card>
        </div>
      </div>
      <SaveBar
        verifierId={verifierId}
        latestNumber={latestNumber}
        draft={draft}
        dirty={dirty}
        onSaved={() => setErrors(NO_ERRORS)}
        onErrors={setErrors}
      />
    </div>
  );
}
