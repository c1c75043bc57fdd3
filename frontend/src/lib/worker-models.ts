import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiResponse } from "@/lib/api-types";

export type AvailableModels = ApiResponse<"/api/v1/models/", "get">;
export type AvailableModel = AvailableModels["models"][number];
export type WorkerQueue = "gpu" | "cpu";

/** How often the list is asked again while it is empty: a worker may be starting. */
export const EMPTY_MODELS_POLL_MS = 5000;

export function availableModelsQueryKey(queue: WorkerQueue) {
  return ["models", queue] as const;
}

/** The models a running worker on `queue` can load (a job may name only these). */
export function getAvailableModels(queue: WorkerQueue, signal?: AbortSignal): Promise<AvailableModels> {
  return api.get<AvailableModels>("/api/v1/models/", { queue }, signal);
}

export function availableModelsQueryOptions(queue: WorkerQueue) {
  return queryOptions({
    queryKey: availableModelsQueryKey(queue),
    queryFn: ({ signal }) => getAvailableModels(queue, signal),
    refetchInterval: (query) => (query.state.data?.models.length ? false : EMPTY_MODELS_POLL_MS),
  });
}

export function useAvailableModels(queue: WorkerQueue) {
  return useQuery(availableModelsQueryOptions(queue));
}
