// Reports of the current team (each a frozen comparison of a candidate with a baseline,
// family by family, and its review state), and the evaluation jobs with their live progress.
import { Link } from "react-router";

import { ProgressBar } from "@/components/run-status/progress-bar";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";

import { useEvaluations } from "../api/evaluations";
import { useReports } from "../api/reports";
import { ReportTable } from "../components/report-table";
import "../reports.css";

function ReportList({ team }: { team: string | undefined }) {
  const reports = useReports(team);
  const rows = reports.data?.results ?? [];
  return (
    <Card title="Reports" description="Candidate against baseline on the same held-out tasks, with a 95% interval per family.">
      <QueryPlaceholder query={reports} />
      {reports.data && !rows.length && (
        <EmptyState title="No reports yet">
          Evaluate a checkpoint and a baseline (<Link to="/evaluations/new">New evaluation</Link>), then compare the
          two once they have finished (<Link to="/reports/new">Compare evaluations</Link>).
        </EmptyState>
      )}
      {rows.length > 0 && <ReportTable rows={rows} />}
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
              <td><Link to={`/evaluations/${j.id}`}>{j.id}</Link></td>
              <td><Link to={`/evaluations/${j.id}`}>{j.subject}</Link></td>
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
          <div className="row">
            <Link className="btn" to="/evaluations/new">
              New evaluation
            </Link>
            <Link className="btn btn-primary" to="/reports/new">
              Compare evaluations
            </Link>
          </div>
        }
      />
      <ReportList team={team} />
      <EvaluationList team={team} />
    </div>
  );
}
