import { usePoolVersions } from "@/lib/pool-versions";

import { useAlgorithms } from "../api/get-algorithms";
import { useCurricula } from "../api/get-curricula";
import { useSuites } from "../api/get-suites";
import { useVerifiers } from "../api/get-verifiers";
import { buildConfig, type Draft, type StepId } from "../lib/draft";
import { curriculumVersions } from "./step-evaluation";
import { WizardField } from "./wizard-field";

function Row({ label, step, onEdit, children }: { label: string; step: StepId; onEdit: (step: StepId) => void; children: React.ReactNode }) {
  return (
    <div className="ex-review-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
      <button type="button" className="btn btn-ghost btn-sm" onClick={() => onEdit(step)} aria-label={`Edit ${label.toLowerCase()}`}>
        Edit
      </button>
    </div>
  );
}

/** Step 6: the name, and everything the experiment will pin, as it will be sent. */
function budgetText(draft: Draft): string {
  const limits = [
    draft.maxWorkerHours.trim() && `${draft.maxWorkerHours.trim()} worker-hours`,
    draft.maxCost.trim() && `a cost of ${draft.maxCost.trim()}`,
  ].filter(Boolean);
  return limits.length ? `each run pauses at ${limits.join(" or ")}` : "no budget";
}

export function StepReview({
  draft,
  errors,
  onChange,
  onEdit,
}: {
  draft: Draft;
  errors: Record<string, string>;
  onChange: (draft: Draft) => void;
  onEdit: (step: StepId) => void;
}) {
  const algorithms = useAlgorithms();
  const curricula = useCurricula();
  const versions = usePoolVersions();
  const verifiers = useVerifiers();
  const algorithm = algorithms.data?.find((a) => a.name === draft.algorithm);
  const config = buildConfig(draft, algorithm);
  const choice = draft.curriculum;
  const curriculum = choice.kind === "saved" ? curricula.data?.find((c) => c.id === choice.saved)?.name : "the cloned experiment's";
  const ids = curriculumVersions(draft, (id) => curricula.data?.find((c) => c.id === id)?.config.families.map((f) => f.version) ?? []);
  const versionName = (id: number) => {
    const v = versions.data?.find((x) => x.id === id);
    return v ? `${v.family_slug} · v${v.number}` : `pool version ${id}`;
  };
  const verifierName = (id: number | null | undefined) => {
    const v = verifiers.data?.find((x) => x.latest_version?.id === id);
    return v ? `${v.name} · v${v.latest_version!.number}` : id ? `verifier version ${id}` : "none chosen";
  };
  const suites = useSuites();
  const suiteName = (id: number) => suites.data?.find((s) => s.id === id)?.name ?? `#${id}`;
  const changed = Object.keys(draft.hyper);
  const evaluated = draft.evalFamilies ?? ids;

  return (
    <div className="stack">
      <div className="ex-grid">
        <WizardField label="Name" error={errors.name} help="Shown on the run pages and in comparisons.">
          {(control) => <input {...control} className="input" value={draft.name} maxLength={120} onChange={(e) => onChange({ ...draft, name: e.target.value })} />}
        </WizardField>
        <WizardField label="Description" error={errors.description} help="Optional: what this experiment tries.">
          {(control) => <input {...control} className="input" value={draft.description} onChange={(e) => onChange({ ...draft, description: e.target.value })} />}
        </WizardField>
      </div>
      <dl className="ex-review" aria-label="Configuration summary">
        <Row label="Curriculum" step="curriculum" onEdit={onEdit}>
          {curriculum ?? "none chosen"}
          <ul className="ex-review-list">
            {ids.map((id) => (
              <li key={id}>
                {versionName(id)} judged by {verifierName(draft.verifiers[String(id)])}
              </li>
            ))}
          </ul>
        </Row>
        <Row label="Model" step="model" onEdit={onEdit}>
          {draft.model || "none chosen"}
          <span className="subtle">
            {draft.promptFormat === "chat" ? ", chat format" : ", raw prompts"}
            {draft.loraRank.trim() === "0" ? ", every weight trained" : `, LoRA rank ${draft.loraRank}`}
          </span>
        </Row>
        <Row label="Algorithm" step="algorithm" onEdit={onEdit}>
          {draft.algorithm.toUpperCase()}
          {draft.preset && <span className="subtle"> from the {draft.preset} preset</span>}
          {changed.length === 0 ? (
            <span className="subtle"> with every hyper-parameter at its default</span>
          ) : (
            <ul className="ex-review-list">
              {changed.map((path) => (
                <li key={path}>
                  <span className="mono">{path}</span> = <span className="mono">{String(draft.hyper[path])}</span>
                </li>
              ))}
            </ul>
          )}
        </Row>
        <Row label="Evaluation" step="evaluation" onEdit={onEdit}>
          {draft.evalSuite !== null ? (
            <>
              the families of evaluation suite {suiteName(draft.evalSuite)}
              {draft.evalEvery.trim() === "0" ? ", at the end" : `, every ${draft.evalEvery} steps`}; a run that succeeds has its
              final checkpoint evaluated on it
            </>
          ) : (
            <>
              {evaluated.length === 0 ? "no held-out sets" : `${evaluated.map(versionName).join(", ")}`}
              {draft.evalEvery.trim() === "0" ? ", at the end" : `, every ${draft.evalEvery} steps`}, at most {draft.evalMaxTasks} tasks each
            </>
          )}
        </Row>
        <Row label="Resources and budget" step="resources" onEdit={onEdit}>
          seed {draft.seed}, {draft.processes} process{draft.processes.trim() === "1" ? "" : "es"}, {draft.rolloutGroups} completion groups kept per step;{" "}
          {budgetText(draft)}
        </Row>
      </dl>
      <details className="ex-json">
        <summary>The configuration as it will be sent</summary>
        <pre>{JSON.stringify(config, null, 2)}</pre>
      </details>
    </div>
  );
}
