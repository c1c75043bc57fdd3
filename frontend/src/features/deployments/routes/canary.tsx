// One canary, live over its websocket (or polled every 3 s): its state and reason, its steps,
// both sides, the pass rates over time, the guardrail checks, the decision buttons and its report.
import { Link, useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { formatDateTime } from "@/lib/format";

import { useCanary } from "../api/canary-stream";
import { useDeployment } from "../api/deployments";
import type { Analysis, Canary } from "../api/types";
import { CanaryStateBadge } from "../components/badges";
import { CanaryControls } from "../components/canary-controls";
import { CanaryReport } from "../components/canary-report";
import { CanarySteps } from "../components/canary-steps";
import { GuardrailChecks, GuardrailSettings } from "../components/guardrail-checks";
import { CANDIDATE_COLOR, PassRateChart, PRODUCTION_COLOR } from "../components/pass-rate-chart";
import { RecentRequests } from "../components/recent-requests";
import { SideCard } from "../components/side-card";
import { VerdictSources } from "../components/verdict-sources";
import { formatShare } from "../lib/format";
import "../deployments.css";

/** The one link back to the deployment: its name (read from the deployment) and its slug. */
function BackLink({ slug }: { slug: string }) {
  const name = useDeployment(slug, false).data?.name;
  return (
    <div>
      <Link to={`/deployments/${slug}`}>← Back to {name && name !== slug ? `${name} (${slug})` : slug}</Link>
    </div>
  );
}

/** How much more traffic the step needs to be decided, at both sides' current rates. */
function Needed({ needed, share }: { needed: Analysis["needed"]; share: number }) {
  if (!needed || needed.answers === 0) return null;
  return (
    <p aria-label="Traffic needed" className="subtle" title={needed.detail}>
      Needs about <strong>{needed.answers.toLocaleString("en")}</strong> more answers to decide this step (about {needed.requests.toLocaleString("en")} requests at{" "}
      {formatShare(share)} to the candidate); at today's rates it would then be {needed.outcome}.
    </p>
  );
}

function CanaryPage({ canary, live }: { canary: Canary; live: boolean }) {
  const analysis = canary.analysis ?? {};
  return (
    <>
      <Card
        title="State"
        description={
          <>
            {canary.mode === "shadow" ? "Shadow" : "Split"} canary of {canary.candidate?.label ?? "the candidate"} against{" "}
            {canary.production?.label ?? "production"} on <span className="dp-mono">{canary.deployment}</span>
            , started by {canary.created_by} {formatDateTime(canary.created_at)}
            {canary.finished_at && <>, finished {formatDateTime(canary.finished_at)}</>}.
          </>
        }
        actions={
          <span className="row subtle" title={live ? "Updates arrive over the websocket" : "Read every 3 s"}>
            <span className={`dot ${live ? "dot-live" : "dot-offline"}`} aria-hidden="true" />
            {live ? "Live" : "Polling"}
          </span>
        }
      >
        <div className="card-body stack">
          <div className="dp-status-line">
            <span role="status" aria-label="Canary state">
              <CanaryStateBadge state={canary.state} />
            </span>
            <span>
              {canary.mode === "shadow" ? "Copy of" : "Share"} <strong>{formatShare(canary.share)}</strong>
            </span>
            <CanarySteps steps={canary.steps} step={canary.step} state={canary.state} />
          </div>
          <p aria-label="Canary reason">{canary.reason}</p>
          {canary.state === "running" && <Needed needed={analysis.needed} share={canary.mode === "shadow" ? 100 : canary.share} />}
          <CanaryControls canary={canary} />
        </div>
      </Card>
      <div className="dp-sides">
        <SideCard title="Production" version={canary.production} stats={analysis.sides?.production} color={PRODUCTION_COLOR} />
        <SideCard
          title="Candidate"
          version={canary.candidate}
          stats={analysis.sides?.candidate}
          color={CANDIDATE_COLOR}
          dropped={canary.mode === "shadow" ? canary.shadow_dropped : undefined}
        />
      </div>
      <Card
        title="Verdicts by source"
        description="Only held-out tasks judged against their references decide the canary: a caller picks real traffic's prompts, so its reference-free verdicts (shadow canaries) are shown beside, never counted."
      >
        <div className="card-body">
          <VerdictSources sources={analysis.sources ?? []} />
        </div>
      </Card>
      <Card title="Pass rate" description="Verified requests of each side, at every analysis; dashed lines mark a new step.">
        <div className="card-body">
          <PassRateChart series={canary.series ?? []} passRate={analysis.pass_rate} />
        </div>
      </Card>
      <Card title="Guardrails" description={analysis.reason || undefined}>
        <div className="card-body stack">
          <GuardrailSettings guardrails={canary.guardrails} />
          <GuardrailChecks checks={analysis.checks ?? []} />
        </div>
      </Card>
      <CanaryReport canary={canary} />
      <Card title="Requests of this canary" description="Both sides, newest first, read again every 2 s.">
        <RecentRequests slug={canary.deployment} filter={{ canary: canary.id }} label="Canary requests" />
      </Card>
    </>
  );
}

export function CanaryRoute() {
  const id = Number(useParams().canaryId);
  const canary = useCanary(id);
  const data = canary.data;
  return (
    <div className="page stack">
      {data && <BackLink slug={data.deployment} />}
      <PageHeader title={`Canary ${Number.isFinite(id) ? id : ""}`} />
      <QueryPlaceholder query={canary} />
      {data && <CanaryPage canary={data} live={canary.stream === "live"} />}
    </div>
  );
}
