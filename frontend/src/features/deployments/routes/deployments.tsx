// The team's deployments: each with its status, the model version it serves and its canary;
// and a form to deploy a registered model's production version.
import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { formatDateTime } from "@/lib/format";

import { useDeployments } from "../api/deployments";
import { CanaryStateBadge, DeploymentStatusBadge } from "../components/badges";
import { CreateDeployment } from "../components/create-deployment";
import { formatShare } from "../lib/format";
import "../deployments.css";

export function DeploymentsRoute() {
  const team = useCurrentTeam().team?.slug;
  const deployments = useDeployments(team);
  const rows = deployments.data?.results ?? [];
  return (
    <div className="page stack">
      <PageHeader
        title="Deployments"
        description="A deployment serves a registered model's production version; a canary sends a share of the traffic to a candidate and promotes or rolls it back against guardrails."
      />
      {team && (
        <Card title="New deployment" description="Serves the model's production version (a promoted checkpoint).">
          <div className="card-body">
            <CreateDeployment team={team} />
          </div>
        </Card>
      )}
      <Card title="Serving" description="Each deployment answers at POST /api/v1/deployments/<slug>/generate/.">
        <QueryPlaceholder query={deployments} />
        {deployments.data && !rows.length && (
          // Not an EmptyState: its title is a heading, and "Deployments" is the page's only one.
          <div className="empty-state">
            <p>
              <strong>No deployments yet</strong>
            </p>
            <p>Deploy a registered model whose production alias points at a promoted checkpoint.</p>
          </div>
        )}
        {rows.length > 0 && (
          <div className="table-wrap">
            <table className="table" aria-label="Deployments">
              <thead>
                <tr>
                  <th>Deployment</th>
                  <th>Status</th>
                  <th>Serving</th>
                  <th>Canary</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <Link to={`/deployments/${d.slug}`}>{d.name}</Link>
                      <div className="subtle dp-mono">{d.slug}</div>
                    </td>
                    <td>
                      <DeploymentStatusBadge status={d.status} />
                    </td>
                    <td>
                      {d.registered_model_name}
                      <div className="subtle">{d.version?.label ?? "no version"}</div>
                    </td>
                    <td>
                      {d.canary ? (
                        <span className="dp-row">
                          <CanaryStateBadge state={d.canary.state} />
                          <span>{formatShare(d.canary.share)}</span>
                        </span>
                      ) : (
                        <span className="subtle">none</span>
                      )}
                    </td>
                    <td>{formatDateTime(d.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}
