import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { runQueryKey, type Checkpoint } from "./types";

export function getRunCheckpoints(id: number, signal?: AbortSignal): Promise<Checkpoint[]> {
  return api.get<Checkpoint[]>(`/api/v1/runs/${id}/checkpoints/`, undefined, signal);
}

export function runCheckpointsQueryOptions(id: number, active: boolean) {
  return queryOptions({
    queryKey: [...runQueryKey(id), "checkpoints"],
    queryFn: ({ signal }) => getRunCheckpoints(id, signal),
    refetchInterval: active ? 10_000 : false,
  });
}

export function useRunCheckpoints(id: number, active: boolean) {
  return useQuery(runCheckpointsQueryOptions(id, active));
}
