// Canaries: starting one on a deployment, the deployment's list, one canary (kept live by
// its websocket, see canary-stream.ts), deciding, pausing and resuming, and its report.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";
import type { ModelVersion } from "@/lib/registry";

import { deploymentKey } from "./deployments";
import { deploymentsKey, type Canary, type Deployment, type CanaryDecision, type CanaryReport, type CanaryStartInput } from "./types";

/** How often the canary page reads the canary while its websocket is not open. */
export const CANARY_POLL_MS = 3_000;

export function canaryKey(id: number) {
  return [...deploymentsKey, "canary", id] as const;
}

export function canaryOptions(id: number, poll: boolean) {
  return queryOptions({
    queryKey: canaryKey(id),
    queryFn: ({ signal }) => api.get<Canary>(`/api/v1/canaries/${id}/`, undefined, signal),
    refetchInterval: poll ? CANARY_POLL_MS : false,
  });
}

export function useDeploymentCanaries(deployment: number | undefined) {
  return useQuery({
    queryKey: [...deploymentsKey, "canaries", deployment],
    queryFn: ({ signal }) =>
      api.get<Paginated<Canary>>("/api/v1/canaries/", { deployment, page_size: 50 }, signal),
    enabled: deployment !== undefined,
    refetchInterval: 5_000,
  });
}

/** Versions of the deployment's model, to choose a candidate from. */
export function useModelVersions(model: number | undefined) {
  return useQuery({
    queryKey: ["registered_model", "versions", model],
    queryFn: ({ signal }) =>
      api.get<Paginated<ModelVersion>>("/api/v1/model-versions/", { model, page_size: 100 }, signal),
    enabled: model !== undefined,
    // A version registered a moment ago (say, by a script) should be a choice at once.
    staleTime: 0,
  });
}

export function useStartCanary(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CanaryStartInput) => api.post<Canary>(`/api/v1/deployments/${slug}/canary/`, input),
    onSuccess: (made) => {
      client.setQueryData(canaryKey(made.id), made);
      // The deployment page shows the active canary at once, before it reads the deployment again.
      client.setQueryData<Deployment>(deploymentKey(slug), (held) => (held ? { ...held, canary: made } : held));
      void client.invalidateQueries({ queryKey: deploymentKey(slug) });
      void client.invalidateQueries({ queryKey: [...deploymentsKey, "canaries"] });
    },
  });
}

function useCanaryAction<I>(id: number, request: (input: I) => Promise<Canary>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (made) => {
      client.setQueryData(canaryKey(id), made);
      void client.invalidateQueries({ queryKey: [...deploymentsKey, "report", id] });
      void client.invalidateQueries({ queryKey: deploymentKey(made.deployment) });
    },
  });
}

/** proceed, extend the step, or roll back a canary awaiting a decision. */
export function useDecideCanary(id: number) {
  return useCanaryAction(id, (input: { decision: CanaryDecision; reason?: string }) =>
    api.post<Canary>(`/api/v1/canaries/${id}/decide/`, input),
  );
}

export function usePauseCanary(id: number) {
  return useCanaryAction(id, (input: { reason?: string }) => api.post<Canary>(`/api/v1/canaries/${id}/pause/`, input));
}

export function useResumeCanary(id: number) {
  return useCanaryAction(id, () => api.post<Canary>(`/api/v1/canaries/${id}/resume/`));
}

/** The report changes with each step; `revision` (the canary's) keys it so it is read again. */
export function useCanaryReport(id: number, revision: number | undefined) {
  return useQuery({
    queryKey: [...deploymentsKey, "report", id, revision],
    queryFn: ({ signal }) => api.get<CanaryReport>(`/api/v1/canaries/${id}/report/`, undefined, signal),
    enabled: revision !== undefined,
    placeholderData: (previous) => previous,
  });
}
