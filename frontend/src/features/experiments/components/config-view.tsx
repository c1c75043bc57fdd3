import { Link } from "react-router";

import { Card } from "@/components/ui/card";
import { usePoolVersions } from "@/lib/pool-versions";

import { useAlgorithms } from "../api/get-algorithms";
import { useVerifiers } from "../api/get-verifiers";
import type { ExperimentConfig } from "../api/types";

function flatten(value: unknown, prefix = ""): [string, unknown][] {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
  }
  return [[prefix, value]];
}

export function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Everything an experiment pins, readable: families with their verifiers, model, algorithm... */
export function ConfigView({ config, hash }: { config: ExperimentConfig; hash: string }) {
  const versions = usePoolVersions();
  const verifiers = useVerifiers();
  const algorithms = useAlgorithms();
  const defaults = new Map((algorithms.data?.find((a) => a.name === config.algorithm)?.fields ?? []).map((f) => [f.path, f.default]));
  const curriculum = config.curriculum;
  const rows = flatten(config.hyperparameters);
  const versionName = (id: number) => {
    const v = versions.data?.find((x) => x.id === id);
    return v ? (
      <Link to={`/task-families/${v.family}/versions/${v.id}`}>
        {v.family_slug} · v{v.number}
      </Link>
    ) : (
      `pool version ${id}`
    );
  };
  const verifierName = (id: number) => {
    const v = verifiers.data?.find((x) => x.latest_version?.id === id);
    return v ? <Link to={`/verifiers/${v.id}`}>{`${v.name} · v${v.latest_version!.number}`}</Link> : `verifier version ${id}`;
  };

  return (
    <Card title="Configuration" description={<span>Frozen: a change is a clone. <span className="mono">{hash.slice(0, 12)}</span></span>}>
      <div className="card-body stack">
        <dl className="ex-facts">
          <div>
            <dt>Model</dt>
            <dd className="mono">{config.model}</dd>
          </div>
          <div>
            <dt>Prompt format</dt>
            <dd>
              {config.prompt_format?.kind === "chat" ? "Chat template" : "Raw prompt"}
              {config.prompt_format?.system_prompt && <span className="subtle"> with a system prompt</span>}
            </dd>
          </div>
          <div>
            <dt>Weights trained</dt>
            <dd>{config.lora ? `LoRA rank ${config.lora.rank}, alpha ${config.lora.alpha}` : "All"}</dd>
          </div>
          <div>
            <dt>Algorithm</dt>
            <dd>{config.algorithm.toUpperCase()}</dd>
          </div>
          <div>
            <dt>Seed</dt>
            <dd>{config.seed}</dd>
          </div>
          <div>
            <dt>Processes</dt>
            <dd>{config.num_processes}</dd>
          </div>
          <div>
            <dt>Evaluation</dt>
            <dd>
              {config.eval.families.length} held-out set{config.eval.families.length === 1 ? "" : "s"},{" "}
              {config.eval.every ? `every ${config.eval.every} steps` : "at the end"}, ≤ {config.eval.max_tasks} tasks each
              {config.eval.suite !== undefined && (
                <>
                  , from <Link to={`/evaluation-suites/${config.eval.suite}`}>evaluation suite {config.eval.suite}</Link>, which also evaluates
                  the final checkpoint
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Curriculum</dt>
            <dd>
              band {Math.round((curriculum.band[0] ?? 0) * 100)}–{Math.round((curriculum.band[1] ?? 0) * 100)}%, {curriculum.dynamic ? "dynamic" : "static"}
              {curriculum.origin && (
                <>
                  {" "}
                  · from <Link to={`/curricula/${curriculum.origin.curriculum}`}>curriculum {curriculum.origin.curriculum}</Link> rev {curriculum.origin.revision}
                </>
              )}
            </dd>
          </div>
        </dl>
        <div className="table-wrap ex-bordered">
          <table className="table" aria-label="Families">
            <thead>
              <tr>
                <th>Pool version</th>
                <th>Verifier version</th>
                <th>Weight</th>
                <th>Levels</th>
                <th>Evaluated</th>
              </tr>
            </thead>
            <tbody>
              {curriculum.families.map((f) => (
                <tr key={f.pool_version}>
                  <td>{versionName(f.pool_version)}</td>
                  <td>{verifierName(f.verifier_version)}</td>
                  <td>{f.weight}</td>
                  <td>{f.levels?.join(", ") ?? "all"}</td>
                  <td>{config.eval.families.includes(f.pool_version) ? "yes" : "no"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <details className="ex-json">
          <summary>All {rows.length} hyper-parameters</summary>
          <table className="table ex-hyper-table" aria-label="Hyper-parameters">
            <tbody>
              {rows.map(([path, value]) => {
                const changed = defaults.has(path) && JSON.stringify(defaults.get(path)) !== JSON.stringify(value);
                return (
                  <tr key={path} className={changed ? "is-changed" : undefined}>
                    <td className="mono">{path}</td>
                    <td className="mono">{show(value)}</td>
                    <td className="subtle">{changed ? `default ${show(defaults.get(path))}` : ""}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </details>
      </div>
    </Card>
  );
}
