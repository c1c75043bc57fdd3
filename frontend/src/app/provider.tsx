import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";

import { LiveClient, LiveClientContext, type InvalidationMap } from "@/lib/live";
import { meQueryKey } from "@/lib/auth";
import { createQueryClient } from "@/lib/query-client";

/** Event types whose cache keys differ from the first segment of the type. */
export const LIVE_INVALIDATIONS: InvalidationMap = {
  "token.created": [["tokens"]],
  "token.revoked": [["tokens"]],
  "member.added": [["teams"], ["auth", "me"]],
  "member.removed": [["teams"], ["auth", "me"]],
  "member.role_changed": [["teams"], ["auth", "me"]],
  "family.created": [["families"]],
  "family.updated": [["families"]],
  "family.archived": [["families"]],
  "family.restored": [["families"]],
  "family.deleted": [["families"]],
  "pool.version_created": [["families"], ["pool-versions"]],
  "pool.grading_started": [["pool-versions"]],
  "pool.job_updated": [["pool-versions"]],
  "verifier.created": [["verifiers"]],
  "verifier.version_created": [["verifiers"]],
  "verifier.example_added": [["verifiers"]],
  // A flagged verdict, and the decision on it, show on the verifier's page and the run's.
  "verifier.example_proposed": [["verifiers"], ["rollout-groups"]],
  "verifier.proposal_accepted": [["verifiers"], ["rollout-groups"]],
  "verifier.proposal_rejected": [["verifiers"], ["rollout-groups"]],
  "curriculum.created": [["curricula"]],
  "curriculum.config_changed": [["curricula"]],
  "experiment.created": [["experiments"]],
  "experiment.cloned": [["experiments"]],
  // A run's own page follows it over its stream; lists of runs and experiments refresh here.
  "run.launched": [["runs", "list"], ["experiments", "list"]],
  "run.cancel_requested": [["runs", "list"]],
  "run.changed": [["runs", "list"], ["experiments", "list"]],
  // A promotion shows on its report and on the run's checkpoints.
  "checkpoint.promoted": [["report"], ["runs", "detail"]],
};

export function AppProvider({
  children,
  queryClient: given,
  live = true,
}: {
  children: ReactNode;
  queryClient?: QueryClient;
  live?: boolean;
}) {
  const [queryClient] = useState(() => given ?? createQueryClient());
  const [liveClient] = useState(() =>
    live
      ? new LiveClient({
          queryClient,
          invalidates: LIVE_INVALIDATIONS,
          onUnauthenticated: () => void queryClient.invalidateQueries({ queryKey: meQueryKey }),
        })
      : null,
  );
  return (
    <QueryClientProvider client={queryClient}>
      <LiveClientContext.Provider value={liveClient}>{children}</LiveClientContext.Provider>
    </QueryClientProvider>
  );
}
