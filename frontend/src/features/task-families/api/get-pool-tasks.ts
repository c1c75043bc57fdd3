import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

import type { PoolTask, Split } from "./types";

export type PoolTaskFilters = {
  split?: Split | "";
  difficulty?: number | "";
  search?: string;
  page: number;
  page_size: number;
};

export function poolTasksQueryKey(versionId: number, filters?: PoolTaskFilters) {
  return filters
    ? (["pool-versions", "tasks", versionId, filters] as const)
    : (["pool-versions", "tasks", versionId] as const);
}

export function getPoolTasks(
  versionId: number,
  filters: PoolTaskFilters,
  signal?: AbortSignal,
): Promise<Paginated<PoolTask>> {
  return api.get<Paginated<PoolTask>>(`/api/v1/pool-versions/${versionId}/tasks/`, filters, signal);
}

export function poolTasksQueryOptions(versionId: number, filters: PoolTaskFilters) {
  return queryOptions({
    queryKey: poolTasksQueryKey(versionId, filters),
    queryFn: ({ signal }) => getPoolTasks(versionId, filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function usePoolTasks(versionId: number, filters: PoolTaskFilters) {
  return useQuery(poolTasksQueryOptions(versionId, filters));
}
