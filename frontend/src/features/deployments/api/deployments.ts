// Deployments of the team: the list, one deployment (read again every few seconds while its
// replicas start or a canary runs), creating, editing, stopping and starting one.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

import { deploymentsKey, type Deployment, type DeploymentInput, type DeploymentPatch } from "./types";

/** How often an open deployment page reads the deployment again (replica states, the canary). */
export const DEPLOYMENT_POLL_MS = 3_000;

export function deploymentsOptions(team: string) {
  return queryOptions({
    queryKey: [...deploymentsKey, "list", team],
    queryFn: ({ signal }) => api.get<Paginated<Deployment>>("/api/v1/deployments/", { team }, signal),
    refetchInterval: 10_000,
  });
}

export function useDeployments(team: string | undefined) {
  return useQuery({ ...deploymentsOptions(team ?? ""), enabled: !!team });
}

export function deploymentKey(slug: string) {
  return [...deploymentsKey, "detail", slug] as const;
}

/** One deployment; `poll` reads it again every few seconds (its page), else only when stale. */
export function useDeployment(slug: string, poll = true) {
  return useQuery({
    queryKey: deploymentKey(slug),
    queryFn: ({ signal }) => api.get<Deployment>(`/api/v1/deployments/${slug}/`, undefined, signal),
    refetchInterval: poll ? DEPLOYMENT_POLL_MS : false,
  });
}

/** A new deployment serving the model's production version; a model without one is a 409. */
export function useCreateDeployment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: DeploymentInput) => api.post<Deployment>("/api/v1/deployments/", input),
    onSuccess: (made) => {
      client.setQueryData(deploymentKey(made.slug), made);
      void client.invalidateQueries({ queryKey: deploymentsKey });
    },
  });
}

function useDeploymentChange<I>(request: (input: I) => Promise<Deployment>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (made) => {
      client.setQueryData(deploymentKey(made.slug), made);
      void client.invalidateQueries({ queryKey: deploymentsKey });
    },
  });
}

export function useUpdateDeployment(slug: string) {
  return useDeploymentChange((input: DeploymentPatch) => api.patch<Deployment>(`/api/v1/deployments/${slug}/`, input));
}

/** Stop serving: the replicas stop and an active canary is cancelled. */
export function useStopDeployment(slug: string) {
  return useDeploymentChange(() => api.post<Deployment>(`/api/v1/deployments/${slug}/stop/`));
}

/** Serve again; a lost production replica is replaced. */
export function useStartDeployment(slug: string) {
  return useDeploymentChange(() => api.post<Deployment>(`/api/v1/deployments/${slug}/start/`));
}

export function useDeleteDeployment(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete(`/api/v1/deployments/${slug}/`),
    onSuccess: () => {
      client.removeQueries({ queryKey: deploymentKey(slug) });
      void client.invalidateQueries({ queryKey: deploymentsKey });
    },
  });
}
