import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { AvailableModels } from "./types";

/** The models a running training worker can load: all a run may name. */
export function getModels(signal?: AbortSignal): Promise<AvailableModels> {
  return api.get<AvailableModels>("/api/v1/models/", { queue: "gpu" }, signal);
}

export function modelsQueryOptions() {
  return queryOptions({
    queryKey: ["models", "gpu"],
    queryFn: ({ signal }) => getModels(signal),
    // A worker started while the wizard is open shows up without a reload.
    refetchInterval: (query) => (query.state.data?.models.length ? false : 5_000),
    staleTime: 10_000,
  });
}

export function useModels() {
  return useQuery(modelsQueryOptions());
}
