import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { experimentQueryKey, type Diff } from "./types";

/** The configuration paths that differ from `id` (old) to `other` (new). */
export function getExperimentDiff(id: number, other: number, signal?: AbortSignal): Promise<Diff> {
  return api.get<Diff>(`/api/v1/experiments/${id}/diff/`, { other }, signal);
}

export function experimentDiffQueryOptions(id: number, other: number) {
  return queryOptions({
    queryKey: [...experimentQueryKey(id), "diff", other],
    queryFn: ({ signal }) => getExperimentDiff(id, other, signal),
  });
}

export function useExperimentDiff(id: number, other: number | null) {
  return useQuery({ ...experimentDiffQueryOptions(id, other ?? 0), enabled: other !== null && other > 0 });
}
