import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

import { runQueryKey, type Rollout } from "./types";

export type RolloutFilters = { step?: number; family?: string; passed?: boolean; page?: number };

/** A page holds a few whole groups at the usual group sizes (4, 8, 16). */
export const ROLLOUTS_PAGE_SIZE = 48;

export function getRunRollouts(id: number, filters: RolloutFilters, signal?: AbortSignal) {
  const query = { ...filters, page_size: ROLLOUTS_PAGE_SIZE };
  return api.get<Paginated<Rollout>>(`/api/v1/runs/${id}/rollouts/`, query, signal);
}

export function runRolloutsQueryOptions(id: number, filters: RolloutFilters) {
  return queryOptions({
    queryKey: [...runQueryKey(id), "rollouts", filters],
    queryFn: ({ signal }) => getRunRollouts(id, filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useRunRollouts(id: number, filters: RolloutFilters) {
  return useQuery(runRolloutsQueryOptions(id, filters));
}
