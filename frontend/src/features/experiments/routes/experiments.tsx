import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useExperiments } from "../api/get-experiments";
import "../experiments.css";

export function ExperimentsRoute() {
  const { team } = useCurrentTeam();
  const experiments = useExperiments();
  const now = new Date();
  const newButton = (
    <Link className="btn btn-primary" to="/experiments/new">
      <Icon name="plus" size={14} />
      New experiment
    </Link>
  );
  return (
    <>
      <PageHeader
        title="Experiments"
        description="An experiment pins versions of task pools, a verifier per family, a curriculum, a model and an algorithm; each launch queues a run that streams its metrics here."
        actions={
          <>
            <Link className="btn" to="/runs">
              All runs
            </Link>
            {newButton}
          </>
        }
      />
      <Card title="Experiments" description={experiments.data ? `${experiments.data.length} in ${team?.name ?? "your teams"}` : undefined}>
        <QueryPlaceholder query={experiments} />
        {experiments.data?.length === 0 && (
          <div className="card-body">
            <EmptyState title="No experiments yet" icon="experiments" action={newButton}>
              An experiment is a frozen training recipe: which task pools and verifiers, which curriculum, which model, which algorithm with which
              hyper-parameters, and which held-out sets to evaluate. Launch it to get a run with live charts; change it by cloning.
            </EmptyState>
          </div>
        )}
        {experiments.data && experiments.data.length > 0 && (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Algorithm</th>
                  <th>Model</th>
                  <th>Families</th>
                  <th>Runs</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {experiments.data.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Link to={`/experiments/${e.id}`}>{e.name}</Link>
                      {e.description && <div className="subtle ex-cell-sub">{e.description}</div>}
                    </td>
                    <td>
                      <span className="ex-chip">{e.config.algorithm.toUpperCase()}</span>
                    </td>
                    <td className="mono">{e.config.model}</td>
                    <td>{e.config.curriculum.families.length}</td>
                    <td>{e.run_count > 0 ? <Link to={`/runs?experiment=${e.id}`}>{e.run_count}</Link> : <span className="subtle">0</span>}</td>
                    <td title={formatDateTime(e.created_at)}>
                      {formatRelative(e.created_at, now)} <span className="subtle">by {e.created_by || "—"}</span>
                    </td>
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
