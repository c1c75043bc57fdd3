import { Link } from "react-router";

import { ErrorMessage } from "@/components/ui/error-message";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatBytes, formatDateTime } from "@/lib/format";
import { formatValue } from "@/components/charts/time-series-chart";

import { useEvaluateAgainstBase } from "../api/evaluate-against-base";
import { useRunCheckpoints } from "../api/get-run-checkpoints";
import { isActive, type Run } from "../api/types";

const SHOWN_METRICS = ["reward/mean", "success", "kl"];

/** What the last "Evaluate and compare" queued, or why it was refused. */
function PendingComparison({ evaluate }: { evaluate: ReturnType<typeof useEvaluateAgainstBase> }) {
  if (evaluate.error) {
    return (
      <div className="card-body">
        <ErrorMessage error={evaluate.error} />
      </div>
    );
  }
  if (!evaluate.data) return null;
  const { candidate, baseline } = evaluate.data;
  return (
    <div className="card-body alert" role="status">
      Queued evaluation <Link to={`/evaluations/${candidate.id}`}>#{candidate.id}</Link> of the checkpoint and{" "}
      <Link to={`/evaluations/${baseline.id}`}>#{baseline.id}</Link> of {baseline.subject}:{" "}
      <Link to={`/reports/new?candidate=${candidate.id}&baseline=${baseline.id}`}>compare them</Link> once both have finished.
    </div>
  );
}

export function RunCheckpoints({ run }: { run: Run }) {
  const checkpoints = useRunCheckpoints(run.id, isActive(run));
  const evaluate = useEvaluateAgainstBase(run);
  return (
    <Card title="Checkpoints" description="Saved model weights, optimiser and curriculum state; a resumed run starts from the newest.">
      <QueryPlaceholder query={checkpoints} />
      <PendingComparison evaluate={evaluate} />
      {checkpoints.data?.length === 0 && (
        <div className="card-body">
          <EmptyState title="No checkpoints yet" icon="deployments">
            {isActive(run)
              ? "A checkpoint is written every checkpoint_every steps (set in the experiment's hyper-parameters) and at the end."
              : "This run ended before writing one."}
          </EmptyState>
        </div>
      )}
      {checkpoints.data && checkpoints.data.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th>Step</th>
                <th>Directory</th>
                {SHOWN_METRICS.map((m) => (
                  <th key={m}>{m}</th>
                ))}
                <th>Size</th>
                <th>Saved</th>
                <th>Promotion</th>
                <th>Download</th>
                <th>Evaluate</th>
              </tr>
            </thead>
            <tbody>
              {checkpoints.data.map((c) => (
                <tr key={c.id}>
                  <td>{c.step}</td>
                  <td className="mono">{c.name}</td>
                  {SHOWN_METRICS.map((m) => (
                    <td key={m}>{formatValue(c.metrics[m])}</td>
                  ))}
                  <td>{formatBytes(c.size_bytes)}</td>
                  <td>{formatDateTime(c.created_at)}</td>
                  <td>
                    {c.promotion ? (
                      <Link to={`/reports/${c.promotion.report}`} title={`by ${c.promotion.promoted_by ?? "someone"} on ${formatDateTime(c.promotion.created_at)}`}>
                        <span className="badge badge-success">Promoted</span> on report v{c.promotion.report_version}
                      </Link>
                    ) : (
                      <span className="subtle">–</span>
                    )}
                  </td>
                  <td>
                    <a
                      href={`/api/v1/checkpoints/${c.id}/export/`}
                      download
                      title="A Hugging Face model directory, zipped: safetensors weights, the tokenizer with its chat template, the generation config and a model card with this checkpoint's lineage"
                    >
                      {c.adapter ? "Merged model" : "Hugging Face model"}
                    </a>
                    {c.adapter && (
                      <>
                        {" · "}
                        <a href={`/api/v1/checkpoints/${c.id}/export/?adapter_only=true`} download title="The LoRA adapter alone, to load on its base model with peft">
                          Adapter
                        </a>
                      </>
                    )}
                  </td>
                  <td>
                    <button type="button" className="btn btn-sm" disabled={evaluate.isPending} onClick={() => evaluate.mutate(c.id)}>
                      Evaluate and compare with the base model
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
