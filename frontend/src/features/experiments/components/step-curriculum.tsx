import { useEffect } from "react";
import { Link } from "react-router";

import { QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { useFamilies } from "@/lib/families";
import { usePoolVersions } from "@/lib/pool-versions";

import { useCurricula } from "../api/get-curricula";
import { useVerifiers } from "../api/get-verifiers";
import type { Family, PoolVersion, SavedCurriculum, Verifier } from "../api/types";
import { defaultVerifierVersion, type Draft } from "../lib/draft";
import { WizardField } from "./wizard-field";

type Errors = Record<string, string>;

function versionLabel(version: PoolVersion | undefined, id: number): string {
  return version ? `${version.family_slug} · v${version.number}` : `pool version ${id}`;
}

function levelsOf(version: PoolVersion | undefined): string {
  const train = (version?.difficulty_histogram as { train?: Record<string, number> } | undefined)?.train ?? {};
  const levels = Object.keys(train)
    .filter((l) => (train[l] ?? 0) > 0)
    .map(Number)
    .sort((a, b) => a - b);
  return levels.length ? `levels ${levels[0]}–${levels[levels.length - 1]}` : "no train tasks";
}

function VerifierSelect({
  poolVersion,
  family,
  verifiers,
  value,
  error,
  onChange,
}: {
  poolVersion: number;
  family: Family | undefined;
  verifiers: Verifier[];
  value: number | null;
  error?: string;
  onChange: (id: number | null) => void;
}) {
  const options = verifiers.filter((v) => v.latest_version);
  const forKind = options.filter((v) => v.family_kind === family?.kind);
  const listed = options.some((v) => v.latest_version!.id === value);
  const help =
    forKind.length === 0 ? (
      <>
        No verifier is made for {family?.kind ?? "this kind"} yet: <Link to="/verifiers">create one</Link> or pick another.
      </>
    ) : (
      "Preselected: the newest version of a verifier made for this family's kind."
    );
  return (
    <WizardField label={`Verifier for pool version ${poolVersion}`} help={help} error={error} className="ex-verifier-field">
      {(control) => (
        <select {...control} className="select" value={value ?? ""} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}>
          <option value="">Choose a verifier version…</option>
          {value !== null && !listed && <option value={value}>verifier version {value} (pinned)</option>}
          {[...forKind, ...options.filter((v) => !forKind.includes(v))].map((v) => (
            <option key={v.id} value={v.latest_version!.id}>
              {v.name} · v{v.latest_version!.number}
              {v.family_kind ? ` (for ${v.family_kind})` : ""}
            </option>
          ))}
        </select>
      )}
    </WizardField>
  );
}

function familyError(errors: Errors, index: number, poolVersion: number): string | undefined {
  return (
    errors[`config.curriculum.families[${index}].verifier_version`] ??
    errors[`config.curriculum.verifiers.${poolVersion}`] ??
    errors[`config.curriculum.families[${index}].pool_version`] ??
    errors[`config.curriculum.families[${index}]`]
  );
}

function FamiliesTable({
  versionIds,
  draft,
  errors,
  onChange,
}: {
  versionIds: number[];
  draft: Draft;
  errors: Errors;
  onChange: (draft: Draft) => void;
}) {
  const versions = usePoolVersions();
  const families = useFamilies();
  const verifiers = useVerifiers();
  const byId = new Map((versions.data ?? []).map((v) => [v.id, v]));
  return (
    <div className="ex-families" role="group" aria-label="Families and their verifiers">
      {versionIds.map((id, index) => {
        const version = byId.get(id);
        const family = families.data?.find((f) => f.id === version?.family);
        return (
          <div key={id} className="ex-family-row" role="group" aria-label={`Family ${versionLabel(version, id)}`}>
            <div className="ex-family-name">
              <strong>{versionLabel(version, id)}</strong>
              <span className="subtle">
                {version ? `${version.train_count} train · ${version.held_out_count} held-out · ${levelsOf(version)}` : ""}
              </span>
              {family && <span className="ex-chip">{family.kind}</span>}
              {version?.environment && <EnvironmentChip environment={version.environment} />}
            </div>
            <VerifierSelect
              poolVersion={id}
              family={family}
              verifiers={verifiers.data ?? []}
              value={draft.verifiers[String(id)] ?? null}
              error={familyError(errors, index, id)}
              onChange={(value) => onChange({ ...draft, verifiers: { ...draft.verifiers, [String(id)]: value } })}
            />
          </div>
        );
      })}
    </div>
  );
}

function savedVersions(curriculum: SavedCurriculum): number[] {
  return curriculum.config.families.map((f) => f.version);
}

function CurriculumOption({
  curriculum,
  versions,
  checked,
  onPick,
}: {
  curriculum: SavedCurriculum;
  versions: Map<number, PoolVersion>;
  checked: boolean;
  onPick: () => void;
}) {
  const band = curriculum.config.band;
  return (
    <label className={`ex-option${checked ? " is-checked" : ""}`}>
      <input type="radio" name="curriculum" checked={checked} onChange={onPick} />
      <span className="ex-option-body">
        <span className="ex-option-title">{curriculum.name}</span>
        {curriculum.description && <span className="subtle">{curriculum.description}</span>}
        <span className="ex-chips">
          {savedVersions(curriculum).map((id) => (
            <span key={id} className="ex-chip">
              {versionLabel(versions.get(id), id)}
            </span>
          ))}
          <span className="subtle">
            band {Math.round((band[0] ?? 0.3) * 100)}–{Math.round((band[1] ?? 0.7) * 100)}% · {curriculum.config.dynamic === false ? "static" : "dynamic"} · revision {curriculum.revision}
          </span>
        </span>
      </span>
    </label>
  );
}

/** A version played as an environment trains on episodes: the kind and limits it froze, said where it is chosen. */
function EnvironmentChip({ environment }: { environment: NonNullable<PoolVersion["environment"]> }) {
  const { max_turns, max_tokens_per_turn, max_total_tokens } = environment.limits;
  return (
    <span
      className="ex-chip"
      aria-label={`Environment ${environment.kind}`}
      title="Trains on episodes: the model acts and the environment answers, within these limits (GRPO-family algorithms only)."
    >
      episodes of {environment.kind} · ≤ {max_turns} turns · {max_tokens_per_turn} tokens/turn · {max_total_tokens} tokens in all
    </span>
  );
}

/** The pool versions the draft's curriculum trains on. */
function draftVersionIds(draft: Draft, curricula: SavedCurriculum[] | undefined): number[] {
  const choice = draft.curriculum;
  if (choice.kind === "inline") return choice.config.families.map((f) => f.pool_version);
  const saved = choice.saved === null ? undefined : curricula?.find((c) => c.id === choice.saved);
  return saved ? savedVersions(saved) : [];
}

/**
 * A family's verifier is absent until chosen: its default fills in once the curricula,
 * families, pool versions and verifiers have all loaded, however late, and on whatever step
 * the wizard is by then (the wizard calls this, not the curriculum step, so moving on before
 * they load does not leave a family without one); null is the user's own "none".
 */
export function useDefaultVerifiers(draft: Draft, onChange: (draft: Draft) => void) {
  const curricula = useCurricula();
  const versions = usePoolVersions();
  const families = useFamilies();
  const verifiers = useVerifiers();
  const unset = draftVersionIds(draft, curricula.data).filter((id) => !(String(id) in draft.verifiers));
  const loaded = Boolean(families.data && verifiers.data && versions.data);

  useEffect(() => {
    if (!loaded || unset.length === 0) return;
    const byId = new Map((versions.data ?? []).map((v) => [v.id, v]));
    const filled = { ...draft.verifiers };
    for (const id of unset) {
      const family = families.data?.find((f) => f.id === byId.get(id)?.family);
      filled[String(id)] = defaultVerifierVersion(family, verifiers.data ?? []);
    }
    onChange({ ...draft, verifiers: filled });
  });
}

/** Step 1: a saved curriculum (its pool versions), and a verifier version per family. */
export function StepCurriculum({ draft, errors, onChange }: { draft: Draft; errors: Errors; onChange: (draft: Draft) => void }) {
  const curricula = useCurricula();
  const versions = usePoolVersions();
  const byId = new Map((versions.data ?? []).map((v) => [v.id, v]));
  const choice = draft.curriculum;

  const pick = (curriculum: SavedCurriculum) => {
    const chosen: Record<string, number | null> = {};
    for (const id of savedVersions(curriculum)) {
      if (String(id) in draft.verifiers) chosen[String(id)] = draft.verifiers[String(id)] ?? null;
    }
    onChange({ ...draft, curriculum: { kind: "saved", saved: curriculum.id }, verifiers: chosen, evalFamilies: null });
  };

  const versionIds = draftVersionIds(draft, curricula.data);
  const general = errors["config.curriculum"] ?? errors["config.curriculum.saved"] ?? errors["config.curriculum.families"];

  return (
    <div className="stack">
      <p className="ex-step-intro">
        A curriculum says which task-pool versions to train on and how the difficulty moves as the model improves. The experiment copies it in,
        so later edits to the curriculum do not change this experiment.
      </p>
      <QueryPlaceholder query={curricula} />
      {curricula.data?.length === 0 && choice.kind === "saved" && (
        <EmptyState title="No saved curricula" icon="curricula" action={<Link className="btn btn-primary" to="/curricula/new">Create a curriculum</Link>}>
          An experiment trains on a curriculum over frozen pool versions. Create one first; the wizard keeps nothing until you launch.
        </EmptyState>
      )}
      {general && <div className="field-error" role="alert">{general}</div>}
      <div className="ex-options" role="radiogroup" aria-label="Curriculum">
        {choice.kind === "inline" && (
          <label className="ex-option is-checked">
            <input type="radio" name="curriculum" checked readOnly />
            <span className="ex-option-body">
              <span className="ex-option-title">The cloned experiment's curriculum</span>
              <span className="subtle">
                {choice.config.origin ? `Copied from curriculum ${choice.config.origin.curriculum}, revision ${choice.config.origin.revision}. ` : ""}
                Kept as it was; pick a saved curriculum below to replace it.
              </span>
            </span>
          </label>
        )}
        {curricula.data?.map((c) => (
          <CurriculumOption key={c.id} curriculum={c} versions={byId} checked={choice.kind === "saved" && choice.saved === c.id} onPick={() => pick(c)} />
        ))}
      </div>
      {versionIds.length > 0 && (
        <>
          <h3 className="ex-subheading">Verifier per family</h3>
          <FamiliesTable versionIds={versionIds} draft={draft} errors={errors} onChange={onChange} />
        </>
      )}
    </div>
  );
}
