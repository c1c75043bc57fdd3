import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { runQueryKey } from "./types";

export type RunUsage = components["schemas"]["RunUsage"];

export function runUsageQueryKey(id: number) {
  return [...runQueryKey(id), "usage"] as const;
}

export function getRunUsage(id: number, signal?: AbortSignal): Promise<RunUsage> {
  return api.get<RunUsage>(`/api/v1/runs/${id}/usage/`, undefined, signal);
}

/** The run's usage by family and queue and its budget; refreshed while it trains (its totals
 * also come live with the run itself). */
export function useRunUsage(id: number, active: boolean) {
  return useQuery(
    queryOptions({
      queryKey: runUsageQueryKey(id),
      queryFn: ({ signal }) => getRunUsage(id, signal),
      refetchInterval: active ? 5_000 : false,
    }),
  );
}
