// Reports of the current team (each a frozen comparison of a candidate with a baseline,
// family by family, and its review state), and the evaluation jobs with their live progress.
import { Link } from "react-router";

import { ProgressBar } from "@/components/run-status/progress-bar";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { formatDateTime } from "@/lib/format";

import { useEvaluations } from "../api/evaluations";
import { useReports } from "../api/reports";
import "../reports.css";

const STATE_LABEL = { draft: "Draft", in_review: "In review", approved: "Approved", changes_requested: "Changes requested" };

function ReportList({ team }: { team: string | undefined }) {
  const reports = useReports(team);
  const rows = reports.data?.results ?? [];
  return (
    <Card title="Reports" description="Candidate against baseline on the same held-out tasks, with a 95% interval per family.">
      <QueryPlaceholder query={reports} />
      {reports.data && !rows.length && (
        <EmptyState title="No reports yet">
          Evaluate a checkpoint and a baseline (POST /api/v1/evaluations/), then compare them (POST /api/v1/reports/).
        </EmptyState>
      )}
      {rows.length > 0 && (
        <table className="table" aria-label="Reports">
          <thead>
            <tr><th>Report</th><th>Version</th><th>Headline</th><th>State</th><th>Created</th></tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td><Link to={`/reports/${r.id}`}>{r.lineage}</Link></td>
                <td>v{r.version}</td>
                <td>{r.headline}</td>
                <td><span className={`rp-state rp-state-${r.state}`}>{STATE_LABEL[r.state]}</span></td>
                <td>{formatDateTime(r.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function EvaluationList({ team }: { team: string | undefined }) {
  const jobs = useEvaluations(team);
  const rows = jobs.data?.results ?? [];
  if (!rows.length) return null;
  return (
    <Card title="Evaluations" description="Checkpoints and base models sampled k times per held-out task, on the cpu queue.">
      <table className="table" aria-label="Evaluations">
        <thead>
          <tr><th>#</th><th>Model</th><th>Families</th><th>k</th><th>Progress</th><th>Message</th></tr>
        </thead>
        <tbody>
          {rows.map((j) => (
            <tr key={j.id}>
              <td>{j.id}</td>
              <td>{j.subject}</td>
              <td>
                {j.families.map((f) => `${f.family} v${f.version_number}`).join(", ")}
                {j.suite !== null && (
                  <div className="subtle">
                    from <Link to={`/evaluation-suites/${j.suite}`}>suite {j.suite}</Link>
                  </div>
                )}
              </td>
              <td>{j.k}</td>
              <td>
                <ProgressBar value={Math.round(j.progress * 100)} max={100} label={`Evaluation ${j.id}`} state={j.state === "failed" ? "failed" : undefined} showText={false} />
              </td>
              <td>{j.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}

export function ReportsRoute() {
  const team = useCurrentTeam().team?.slug;
  return (
    <div className="page stack">
      <PageHeader
        title="Reports"
        description="Regression reports compare a candidate with a baseline family by family, and go through review before a checkpoint ships."
        actions={
          <Link className="btn btn-primary" to="/evaluations/new">
            New evaluation
          </Link>
        }
      />
      <ReportList team={team} />
      <EvaluationList team={team} />
    </div>
  );
}
