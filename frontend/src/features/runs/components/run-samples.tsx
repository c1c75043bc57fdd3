import { useState } from "react";

import { formatValue } from "@/components/charts/time-series-chart";
import { QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";

import { ROLLOUTS_PAGE_SIZE, useRunRollouts, type RolloutFilters } from "../api/get-run-rollouts";
import type { Rollout, Run } from "../api/types";

type Layer = {
  name?: string;
  kind?: string;
  stage?: string;
  passed?: boolean;
  score?: number | null;
  error_type?: string;
  detail?: string;
  skipped?: boolean;
};

function Verdict({ passed }: { passed: boolean }) {
  return <span className={`badge ${passed ? "badge-success" : "badge-danger"}`}>{passed ? "passed" : "failed"}</span>;
}

function LayersTable({ layers }: { layers: Layer[] }) {
  if (layers.length === 0) return null;
  return (
    <table className="table rn-layers" aria-label="Layered verdict">
      <thead>
        <tr>
          <th>Layer</th>
          <th>Stage</th>
          <th>Result</th>
          <th>Score</th>
          <th>Error type</th>
          <th>Detail</th>
        </tr>
      </thead>
      <tbody>
        {layers.map((layer, i) => (
          <tr key={`${layer.name ?? "layer"}-${i}`} className={layer.skipped ? "is-inactive" : undefined}>
            <td>
              <strong>{layer.name}</strong> <span className="mono subtle">{layer.kind}</span>
            </td>
            <td>{layer.stage}</td>
            <td>{layer.skipped && !layer.passed ? <span className="subtle">skipped</span> : <Verdict passed={!!layer.passed} />}</td>
            <td className="mono">{formatValue(layer.score)}</td>
            <td>{layer.error_type && layer.error_type !== "none" ? <span className="rn-error-type">{layer.error_type}</span> : <span className="subtle">—</span>}</td>
            <td className="rn-detail">{layer.detail}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type Group = { key: string; step: number; group: number; rows: Rollout[] };

/** Completions of one prompt (a step's group) together, as the advantage compares them. */
function groups(rollouts: Rollout[]): Group[] {
  const out: Group[] = [];
  for (const r of rollouts) {
    const last = out[out.length - 1];
    if (last && last.step === r.step && last.group === r.group) last.rows.push(r);
    else out.push({ key: `${r.step}-${r.group}`, step: r.step, group: r.group, rows: [r] });
  }
  return out;
}

function Parts({ parts }: { parts: Rollout["parts"] }) {
  return (
    <span className="rn-parts">
      {Object.entries(parts).map(([part, value]) => (
        <span key={part}>
          {part} <span className="mono">{formatValue(value)}</span>
        </span>
      ))}
    </span>
  );
}

function SampleRow({ rollout }: { rollout: Rollout }) {
  const layers = rollout.layers as Layer[];
  return (
    <tr>
      <td className="mono subtle">{rollout.sample}</td>
      <td className="rn-completion-cell">
        <pre className="rn-text rn-completion">{rollout.completion || <span className="subtle">(empty)</span>}</pre>
        {layers.length > 0 && (
          <details className="rn-layers-details">
            <summary>
              {layers.length} layer{layers.length === 1 ? "" : "s"}:{" "}
              {layers.map((l) => `${l.name ?? l.kind} ${l.skipped && !l.passed ? "skipped" : l.passed ? "✓" : "✗"}`).join(" · ")}
            </summary>
            <LayersTable layers={layers} />
          </details>
        )}
      </td>
      <td>
        <Verdict passed={rollout.passed} />
        {!rollout.passed && rollout.error_type && (
          <div>
            <span className="rn-error-type">{rollout.error_type}</span>
          </div>
        )}
      </td>
      <td className="mono">{formatValue(rollout.reward)}</td>
      <td>
        <Parts parts={rollout.parts} />
      </td>
      <td className="mono">{formatValue(rollout.advantage)}</td>
    </tr>
  );
}

function GroupCard({ group }: { group: Group }) {
  const first = group.rows[0]!;
  const passed = group.rows.filter((r) => r.passed).length;
  return (
    <article className="card rn-sample" aria-label={`Step ${group.step}, group ${group.group}`}>
      <header className="rn-sample-head">
        <strong>Step {group.step}</strong>
        <span className="subtle">group {group.group}</span>
        <span className="rn-chip">{first.family}</span>
        <span className="rn-chip">level {first.difficulty}</span>
        <span className="subtle rn-sample-figures">
          {passed} of {group.rows.length} passed
        </span>
      </header>
      <div className="rn-prompt">
        <div className="rn-text-label">Prompt</div>
        <pre className="rn-text">{first.prompt}</pre>
      </div>
      <div className="table-wrap">
        <table className="table rn-samples-table" aria-label={`Completions of step ${group.step}, group ${group.group}`}>
          <thead>
            <tr>
              <th>#</th>
              <th>Completion</th>
              <th>Verdict</th>
              <th>Reward</th>
              <th>Parts</th>
              <th>Advantage</th>
            </tr>
          </thead>
          <tbody>
            {group.rows.map((r) => (
              <SampleRow key={r.id} rollout={r} />
            ))}
          </tbody>
        </table>
      </div>
      <footer className="rn-provenance subtle">
        pool version {first.pool_version ?? "—"} · verifier version {first.verifier_version ?? "—"} · task{" "}
        <span className="mono">{first.task_hash ? first.task_hash.slice(0, 12) : "—"}</span>
      </footer>
    </article>
  );
}

function parseStep(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Stored completions with their verdicts, filtered by step, family and outcome. */
export function RunSamples({ run, families }: { run: Run; families: string[] }) {
  const [step, setStep] = useState("");
  const [family, setFamily] = useState("");
  const [passed, setPassed] = useState("");
  const [page, setPage] = useState(1);
  const filters: RolloutFilters = {
    step: parseStep(step),
    family: family || undefined,
    passed: passed === "" ? undefined : passed === "true",
    page,
  };
  const rollouts = useRunRollouts(run.id, filters);
  const count = rollouts.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / ROLLOUTS_PAGE_SIZE));
  const refilter = (set: (v: string) => void) => (value: string) => {
    set(value);
    setPage(1);
  };

  return (
    <div className="stack">
      <div className="card rn-filters" role="group" aria-label="Filter samples">
        <div className="field">
          <label htmlFor="sample-step">Step</label>
          <input id="sample-step" className="input" inputMode="numeric" placeholder={`0–${run.step}`} value={step} onChange={(e) => refilter(setStep)(e.target.value.trim())} />
        </div>
        <div className="field">
          <label htmlFor="sample-family">Family</label>
          <select id="sample-family" className="select" value={family} onChange={(e) => refilter(setFamily)(e.target.value)}>
            <option value="">All families</option>
            {families.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="sample-passed">Verdict</label>
          <select id="sample-passed" className="select" value={passed} onChange={(e) => refilter(setPassed)(e.target.value)}>
            <option value="">Passed and failed</option>
            <option value="true">Passed</option>
            <option value="false">Failed</option>
          </select>
        </div>
        <span className="subtle rn-filters-count" aria-live="polite">
          {rollouts.data ? `${count} completion${count === 1 ? "" : "s"}` : ""}
        </span>
      </div>
      <QueryPlaceholder query={rollouts} />
      {rollouts.data?.results.length === 0 && (
        <EmptyState title="No stored completions match" icon="inbox">
          Each step stores the first groups of completions (the experiment's rollout_groups) with their verdicts.
        </EmptyState>
      )}
      {groups(rollouts.data?.results ?? []).map((g) => (
        <GroupCard key={g.key} group={g} />
      ))}
      {pages > 1 && (
        <nav className="row rn-pager" aria-label="Sample pages">
          <button type="button" className="btn btn-sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span className="subtle">
            Page {page} of {pages}
          </span>
          <button type="button" className="btn btn-sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}
