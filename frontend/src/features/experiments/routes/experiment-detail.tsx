import { Link, useNavigate, useParams, useSearchParams } from "react-router";

import { QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage } from "@/components/ui/error-message";
import { PageHeader } from "@/components/ui/page-header";
import { isApiError } from "@/lib/api-client";
import { formatDateTime } from "@/lib/format";

import { useExperiment } from "../api/get-experiment";
import { useLaunchExperiment } from "../api/launch-experiment";
import type { Experiment } from "../api/types";
import { ConfigDiff } from "../components/config-diff";
import { ConfigView } from "../components/config-view";
import { ExperimentPreflight } from "../components/experiment-preflight";
import { ExperimentRuns } from "../components/experiment-runs";
import "../experiments.css";

function ExperimentPage({ experiment }: { experiment: Experiment }) {
  const [params] = useSearchParams();
  const other = Number(params.get("diff")) || null;
  const launch = useLaunchExperiment();
  const navigate = useNavigate();
  const launchButton = (
    <button
      type="button"
      className="btn btn-primary"
      disabled={launch.isPending}
      onClick={() => launch.mutate(experiment.id, { onSuccess: (run) => navigate(`/runs/${run.id}`) })}
    >
      {launch.isPending ? "Launching…" : "Launch run"}
    </button>
  );
  return (
    <>
      <div className="subtle" style={{ marginBottom: 4 }}>
        <Link to="/experiments">Experiments</Link> /
      </div>
      <PageHeader
        title={experiment.name}
        description={
          <span>
            {experiment.description && <>{experiment.description} · </>}
            Created {formatDateTime(experiment.created_at)} by {experiment.created_by || "—"}
            {experiment.parent !== null && (
              <>
                {" "}
                · cloned from <Link to={`/experiments/${experiment.parent}`}>experiment {experiment.parent}</Link> (
                <Link to={`?diff=${experiment.parent}`}>what changed</Link>)
              </>
            )}
          </span>
        }
        actions={
          <>
            <Link className="btn" to={`/experiments/new?from=${experiment.id}`}>
              Clone and edit
            </Link>
            {launchButton}
          </>
        }
      />
      <div className="stack">
        {launch.error !== null && <ErrorMessage error={launch.error} />}
        <ExperimentRuns experimentId={experiment.id} launchButton={launchButton} />
        <ExperimentPreflight experimentId={experiment.id} />
        <ConfigView config={experiment.config} hash={experiment.config_hash} />
        <ConfigDiff experiment={experiment} other={other} />
      </div>
    </>
  );
}

export function ExperimentDetailRoute() {
  const params = useParams();
  const id = Number(params.experimentId);
  const experiment = useExperiment(Number.isInteger(id) && id > 0 ? id : null);
  if (!Number.isInteger(id) || id <= 0 || (isApiError(experiment.error) && experiment.error.status === 404)) {
    return (
      <EmptyState title="No such experiment" icon="experiments" action={<Link className="btn" to="/experiments">All experiments</Link>}>
        It does not exist, or it belongs to a team you are not in.
      </EmptyState>
    );
  }
  if (!experiment.data) return <QueryPlaceholder query={experiment} />;
  return <ExperimentPage key={experiment.data.id} experiment={experiment.data} />;
}
