// One deployment: its status and replicas, Stop/Start, "Try it", its canary (or the form to
// start one), its past canaries and the request log.
import { useState } from "react";
import { useNavigate, useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ErrorMessage } from "@/components/ui/error-message";
import { PageHeader } from "@/components/ui/page-header";

import { useDeploymentCanaries } from "../api/canaries";
import { useDeleteDeployment, useDeployment, useStartDeployment, useStopDeployment } from "../api/deployments";
import type { Deployment } from "../api/types";
import { ActiveCanary } from "../components/active-canary";
import { DeploymentStatusBadge } from "../components/badges";
import { CanaryList } from "../components/canary-list";
import { DeploymentSettings } from "../components/deployment-settings";
import { RecentRequests } from "../components/recent-requests";
import { ReplicasTable } from "../components/replicas-table";
import { StartCanary } from "../components/start-canary";
import { TryIt } from "../components/try-it";
import "../deployments.css";

type Change = ReturnType<typeof useStopDeployment>;

function Controls({ deployment, stop, start }: { deployment: Deployment; stop: Change; start: Change }) {
  const navigate = useNavigate();
  const remove = useDeleteDeployment(deployment.slug);
  const [confirming, setConfirming] = useState(false);
  const pending = stop.isPending || start.isPending;
  return (
    <>
      {deployment.stopped ? (
        <button type="button" className="btn btn-primary" disabled={pending} onClick={() => start.mutate(undefined)}>
          Start
        </button>
      ) : (
        <button type="button" className="btn" disabled={pending} onClick={() => stop.mutate(undefined)}>
          Stop
        </button>
      )}
      <button type="button" className="btn btn-ghost" onClick={() => setConfirming(true)}>
        Delete
      </button>
      {confirming && (
        <ConfirmDialog
          title={`Delete ${deployment.name}?`}
          confirmLabel="Delete deployment"
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate("/deployments") })}
          onCancel={() => setConfirming(false)}
        >
          Its replicas stop and its request log goes with it.
        </ConfirmDialog>
      )}
    </>
  );
}

function DeploymentPage({ deployment }: { deployment: Deployment }) {
  const canaries = useDeploymentCanaries(deployment.id);
  const stop = useStopDeployment(deployment.slug);
  const start = useStartDeployment(deployment.slug);
  const canary = deployment.canary;
  return (
    <>
      <Card title="Status" actions={<div className="row"><Controls deployment={deployment} stop={stop} start={start} /></div>}>
        <div className="card-body stack">
          <div className="dp-status-line">
            <span role="status" aria-label="Deployment status">
              <DeploymentStatusBadge status={deployment.status} />
            </span>
            <span className="subtle">
              {deployment.registered_model_name} · {deployment.version?.label ?? "no version"}
            </span>
          </div>
          {(stop.error || start.error) && <ErrorMessage error={stop.error ?? start.error} />}
          <DeploymentSettings deployment={deployment} />
          <ReplicasTable replicas={deployment.replicas} />
        </div>
      </Card>
      <TryIt slug={deployment.slug} />
      <Card
        title={canary ? "Canary" : "Start a canary"}
        description={
          canary
            ? "A candidate is being compared with production on live traffic."
            : "Compare a candidate version with production on a share (split) or a copy (shadow) of the traffic."
        }
      >
        <div className="card-body">
          {canary ? (
            <ActiveCanary canary={canary} />
          ) : deployment.stopped ? (
            <p className="subtle">The deployment is stopped: start it to run a canary.</p>
          ) : (
            <StartCanary deployment={deployment} />
          )}
        </div>
      </Card>
      <Card title="Past canaries">
        <QueryPlaceholder query={canaries} />
        {canaries.data && <CanaryList canaries={canaries.data.results} />}
      </Card>
      <Card title="Request log" description="Newest first, read again every 2 s.">
        <RecentRequests slug={deployment.slug} />
      </Card>
    </>
  );
}

export function DeploymentRoute() {
  const slug = useParams().slug ?? "";
  const deployment = useDeployment(slug);
  const data = deployment.data;
  return (
    <div className="page stack">
      <PageHeader title={data ? data.name : slug} description={data ? <span className="dp-mono">{data.slug}</span> : undefined} />
      <QueryPlaceholder query={deployment} />
      {data && <DeploymentPage deployment={data} />}
    </div>
  );
}
