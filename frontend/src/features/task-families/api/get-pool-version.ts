import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { PoolVersion } from "./types";

export function poolVersionQueryKey(id: number) {
  return ["pool-versions", "detail", id] as const;
}

export function getPoolVersion(id: number, signal?: AbortSignal): Promise<PoolVersion> {
  return api.get<PoolVersion>(`/api/v1/pool-versions/${id}/`, undefined, signal);
}

export function poolVersionQueryOptions(id: number) {
  return queryOptions({ queryKey: poolVersionQueryKey(id), queryFn: ({ signal }) => getPoolVersion(id, signal) });
}

export function usePoolVersion(id: number) {
  return useQuery(poolVersionQueryOptions(id));
}
