import { useNavigate } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { Field } from "@/components/ui/field";

import { useExperimentDiff } from "../api/get-experiment-diff";
import { useExperiments } from "../api/get-experiments";
import type { Experiment } from "../api/types";
import { show } from "./config-view";

/** This experiment's configuration against another one's, path by path. */
export function ConfigDiff({ experiment, other }: { experiment: Experiment; other: number | null }) {
  const experiments = useExperiments();
  const diff = useExperimentDiff(experiment.id, other);
  const navigate = useNavigate();
  const others = (experiments.data ?? []).filter((e) => e.id !== experiment.id);
  const otherName = others.find((e) => e.id === other)?.name ?? `experiment ${other}`;
  return (
    <Card title="Compare configuration" description="Every setting that differs from this experiment to another one.">
      <div className="card-body stack">
        <Field id="diff-other" label="Compare with">
          <select
            id="diff-other"
            className="select ex-wide"
            value={other ?? ""}
            onChange={(e) => navigate(e.target.value ? `?diff=${e.target.value}` : "?", { replace: true })}
          >
            <option value="">Choose an experiment…</option>
            {others.map((e) => (
              <option key={e.id} value={e.id}>
                {e.name}
                {e.id === experiment.parent ? " (parent)" : ""}
              </option>
            ))}
          </select>
        </Field>
        {other !== null && <QueryPlaceholder query={diff} />}
        {diff.data && diff.data.changes.length === 0 && <p className="subtle">The two configurations are the same.</p>}
        {diff.data && diff.data.changes.length > 0 && (
          <div className="table-wrap ex-bordered">
            <table className="table" aria-label="Configuration differences">
              <thead>
                <tr>
                  <th>Setting</th>
                  <th>{experiment.name}</th>
                  <th>{otherName}</th>
                </tr>
              </thead>
              <tbody>
                {diff.data.changes.map((change) => (
                  <tr key={change.path}>
                    <td className="mono">{change.path}</td>
                    <td className="mono ex-old">{show(change.old)}</td>
                    <td className="mono ex-new">{show(change.new)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </Card>
  );
}
