import { ConceptPage } from "@/components/ui/concept-page";

export function DeploymentsRoute() {
  return (
    <ConceptPage
      title="Deployments"
      icon="deployments"
      description="A deployment serves a production checkpoint; a canary sends a share of traffic to a reviewed candidate and promotes or rolls it back against guardrails."
      emptyTitle="No deployments yet"
      emptyBody="Deployments and their canaries will appear here once a checkpoint is promoted."
    />
  );
}
