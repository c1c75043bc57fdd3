import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useSuites } from "../api/get-suites";
import type { EvaluationSuite } from "../api/types";
import "../evaluation-suites.css";

function usedBy(suite: EvaluationSuite): string {
  const parts = [
    suite.jobs ? `${suite.jobs} evaluation${suite.jobs === 1 ? "" : "s"}` : null,
    suite.experiments ? `${suite.experiments} experiment${suite.experiments === 1 ? "" : "s"}` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "—";
}

export function SuitesRoute() {
  const { team } = useCurrentTeam();
  const suites = useSuites();
  const now = new Date();
  const newButton = (
    <Link className="btn btn-primary" to="/evaluation-suites/new">
      <Icon name="plus" size={14} />
      New suite
    </Link>
  );
  return (
    <>
      <PageHeader
        title="Evaluation suites"
        description="A saved set of held-out families, each with its verifier and regression threshold, and the settings to evaluate them with: start evaluations from it, or name it in an experiment's evaluation."
        actions={
          <>
            <Link className="btn" to="/evaluations/new">
              New evaluation
            </Link>
            {newButton}
          </>
        }
      />
      <Card title="Suites" description={suites.data ? `${suites.data.length} in ${team?.name ?? "your teams"}` : undefined}>
        <QueryPlaceholder query={suites} />
        {suites.data?.length === 0 && (
          <div className="card-body">
            <EmptyState title="No evaluation suites yet" icon="suites" action={newButton}>
              Choose the held-out sets a checkpoint must not regress on, once, and evaluate every candidate the same way.
            </EmptyState>
          </div>
        )}
        {suites.data && suites.data.length > 0 && (
          <div className="table-wrap">
            <table className="table" aria-label="Evaluation suites">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Families</th>
                  <th>k</th>
                  <th>Tasks per family</th>
                  <th>Used by</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {suites.data.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <Link to={`/evaluation-suites/${s.id}`}>{s.name}</Link>
                      {s.description && <div className="subtle">{s.description}</div>}
                    </td>
                    <td>{s.families.map((f) => `${f.family} v${f.version_number} (threshold ${f.threshold_pts} pts)`).join(", ")}</td>
                    <td>{s.k}</td>
                    <td>≤ {s.max_tasks}</td>
                    <td>{usedBy(s)}</td>
                    <td title={formatDateTime(s.updated_at)}>{formatRelative(s.updated_at, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </>
  );
}
