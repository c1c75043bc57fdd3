import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { isActive, runQueryKey, type Run } from "./types";

export function getRun(id: number, signal?: AbortSignal): Promise<Run> {
  return api.get<Run>(`/api/v1/runs/${id}/`, undefined, signal);
}

export function runQueryOptions(id: number) {
  return queryOptions({
    queryKey: runQueryKey(id),
    queryFn: ({ signal }) => getRun(id, signal),
    // The heartbeat, the log lines and the worker come with the run, not over the stream.
    refetchInterval: (query) => (isActive(query.state.data) ? 3_000 : false),
  });
}

export function useRun(id: number) {
  return useQuery(runQueryOptions(id));
}
