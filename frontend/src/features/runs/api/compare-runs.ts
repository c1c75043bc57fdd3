import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { runsQueryKey, type Comparison } from "./types";

/** Final metrics side by side and where the runs' configurations differ. */
export function compareRuns(ids: number[], signal?: AbortSignal): Promise<Comparison> {
  return api.get<Comparison>("/api/v1/runs/compare/", { ids: ids.join(",") }, signal);
}

export function compareRunsQueryOptions(ids: number[]) {
  return queryOptions({
    queryKey: [...runsQueryKey, "compare", ids],
    queryFn: ({ signal }) => compareRuns(ids, signal),
  });
}

export function useCompareRuns(ids: number[]) {
  return useQuery({ ...compareRunsQueryOptions(ids), enabled: ids.length >= 2 });
}
