// One evaluation job: its progress (refetched on "evaluation.updated" from the team's socket,
// see lib/live.ts, with a slow poll while it is unfinished), what it found per family, and the
// reports that compare it.
import { Link, useParams } from "react-router";

import { ProgressBar } from "@/components/run-status/progress-bar";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { formatDateTime } from "@/lib/format";

import { useEvaluation, type EvaluationDetail } from "../api/evaluations";
import { useReportsOfEvaluation } from "../api/reports";
import { ReportTable } from "../components/report-table";
import "../reports.css";

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function Progress({ job }: { job: EvaluationDetail }) {
  return (
    <Card title="Progress" description={`k = ${job.k} samples per task at temperature ${job.temperature}, ≤ ${job.max_tasks} tasks per family.`}>
      <div className="card-body stack">
        <ProgressBar value={job.state === "succeeded" ? 100 : Math.round(job.progress * 100)} max={100} label={`Evaluation ${job.id}`} state={job.state === "failed" ? "failed" : undefined} />
        <div>
          <strong>{job.state}</strong>
          {job.message && <> — {job.message}</>}
        </div>
        <div className="subtle">
          Queued {formatDateTime(job.created_at)} by {job.created_by ?? "someone since removed"}
          {job.started_at && <>, started {formatDateTime(job.started_at)}</>}
          {job.finished_at && <>, finished {formatDateTime(job.finished_at)}</>}.
        </div>
      </div>
    </Card>
  );
}

function Results({ job }: { job: EvaluationDetail }) {
  const thresholds = new Map(job.families.map((f) => [f.family, f]));
  // Families played as environments: the turns their episodes used and how consistently a
  // task's repeated episodes agreed.
  const episodes = job.results.some((r) => r.mean_turns !== null);
  return (
    <Card title="Results per family" description="pass@1 is the share of samples that passed; pass@k the share of tasks with a pass among k samples.">
      {!job.results.length ? (
        <EmptyState title="No task evaluated yet">Results appear here as tasks are sampled and verified.</EmptyState>
      ) : (
        <table className="table" aria-label="Results per family">
          <thead>
            <tr>
              <th>Family</th><th>Pool version</th><th>Tasks</th><th>pass@1</th><th>pass@k</th>
              {episodes && <><th>Turns used</th><th>Agreement</th></>}
            </tr>
          </thead>
          <tbody>
            {job.results.map((r) => (
              <tr key={r.family}>
                <td>{r.family}</td>
                <td>v{thresholds.get(r.family)?.version_number ?? "?"}</td>
                <td>{r.tasks}</td>
                <td>{percent(r.pass_at_1)}</td>
                <td>{percent(r.pass_at_k)} <span className="subtle">(k = {r.k})</span></td>
                {episodes && (
                  <>
                    <td>{r.mean_turns === null ? "–" : r.mean_turns.toFixed(2)}</td>
                    <td>{r.agreement === null ? "–" : percent(r.agreement)}</td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function Reports({ job }: { job: EvaluationDetail }) {
  const reports = useReportsOfEvaluation(job.id);
  const rows = reports.data?.results ?? [];
  return (
    <Card title="Reports" description="The reports that use this evaluation as candidate or baseline.">
      <QueryPlaceholder query={reports} />
      {reports.data && !rows.length && (
        <EmptyState title="No report uses it yet">
          {job.state === "succeeded" ? (
            <Link to={`/reports/new?candidate=${job.id}`}>Compare it with another evaluation</Link>
          ) : (
            "Once it has succeeded, compare it with another evaluation."
          )}
        </EmptyState>
      )}
      {rows.length > 0 && <ReportTable rows={rows} />}
    </Card>
  );
}

export function EvaluationRoute() {
  const id = Number(useParams().evaluationId);
  const job = useEvaluation(id);
  return (
    <div className="page stack">
      <div className="subtle">
        <Link to="/reports">Reports</Link> /
      </div>
      {!job.data ? (
        <QueryPlaceholder query={job} />
      ) : (
        <>
          <PageHeader
            title={`Evaluation ${job.data.id}: ${job.data.subject}`}
            description={job.data.families.map((f) => `${f.family} v${f.version_number}`).join(", ")}
            actions={
              job.data.state === "succeeded" && (
                <Link className="btn btn-primary" to={`/reports/new?candidate=${job.data.id}`}>
                  Compare
                </Link>
              )
            }
          />
          <Progress job={job.data} />
          <Results job={job.data} />
          <Reports job={job.data} />
        </>
      )}
    </div>
  );
}
