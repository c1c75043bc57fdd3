// Pre-flights: start one on the wizard's configuration (or an experiment's), follow it live.
// The team's events socket says "preflight.updated" as it progresses, which refetches
// ["preflight", ...] (see lib/live.ts); while it runs, a slow poll covers a lost socket.
import { queryOptions, useMutation, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { ApiRequestBody, Paginated } from "@/lib/api-types";

import type { ExperimentConfigInput } from "./types";

export type Preflight = components["schemas"]["Preflight"];
export type PreflightResult = components["schemas"]["PreflightResult"];
export type PreflightFamily = components["schemas"]["PreflightFamily"];
/** The pre-flight's body, its configuration as the wizard sends it (see `ExperimentConfigInput`). */
export type PreflightInput = Omit<ApiRequestBody<"/api/v1/preflights/", "post">, "config"> & { config?: ExperimentConfigInput };

export const preflightQueryKey = ["preflight"] as const;
const POLL_MS = 5_000;

export function isFinished(preflight: Pick<Preflight, "state"> | undefined): boolean {
  return preflight?.state === "succeeded" || preflight?.state === "failed";
}

export function startPreflight(input: PreflightInput): Promise<Preflight> {
  return api.post<Preflight>("/api/v1/preflights/", input);
}

export function useStartPreflight() {
  return useMutation({ mutationFn: startPreflight });
}

export function preflightOptions(id: number) {
  return queryOptions({
    queryKey: [...preflightQueryKey, id],
    queryFn: ({ signal }) => api.get<Preflight>(`/api/v1/preflights/${id}/`, undefined, signal),
    refetchInterval: (query) => (isFinished(query.state.data) ? false : POLL_MS),
  });
}

export function usePreflight(id: number | null) {
  return useQuery({ ...preflightOptions(id ?? 0), enabled: id !== null });
}

/** The newest pre-flight kept with an experiment, or null when it has none. */
export function useLatestPreflight(experimentId: number) {
  return useQuery({
    queryKey: [...preflightQueryKey, "experiment", experimentId],
    queryFn: async ({ signal }) => {
      const page = await api.get<Paginated<Preflight>>("/api/v1/preflights/", { experiment: experimentId, page_size: 1 }, signal);
      return page.results[0] ?? null;
    },
    refetchInterval: (query) => (query.state.data && !isFinished(query.state.data) ? POLL_MS : false),
  });
}
