import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiResponse, ListItem } from "@/lib/api-types";

import { verifiersQueryKey } from "./get-verifiers";

type PoolTaskPage = ApiResponse<"/api/v1/pool-versions/{id}/tasks/", "get">;
export type PoolTask = ListItem<PoolTaskPage>;

/** The tasks the picker lists at once; the search narrows them. */
export const TASKS_SHOWN = 50;

export function getPoolTasks(versionId: number, search: string, signal?: AbortSignal): Promise<PoolTaskPage> {
  const query = { page_size: TASKS_SHOWN, ...(search ? { search } : {}) };
  return api.get<PoolTaskPage>(`/api/v1/pool-versions/${versionId}/tasks/`, query, signal);
}

/** Task number `position` (1-based, in the version's order) of a version holding `count` tasks. */
export async function getPoolTaskAt(versionId: number, position: number): Promise<PoolTask | undefined> {
  const page = await api.get<PoolTaskPage>(`/api/v1/pool-versions/${versionId}/tasks/`, {
    page: position,
    page_size: 1,
  });
  return page.results[0];
}

export function poolTasksQueryOptions(versionId: number, search: string) {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "playground", "pool-tasks", versionId, search],
    queryFn: ({ signal }) => getPoolTasks(versionId, search, signal),
    placeholderData: keepPreviousData,
  });
}

export function usePoolTasks(versionId: number | null, search: string) {
  return useQuery({ ...poolTasksQueryOptions(versionId ?? 0, search), enabled: versionId !== null });
}
