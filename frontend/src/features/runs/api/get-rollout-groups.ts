import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

import type { Filters } from "../lib/inspector";

export type RolloutGroup = components["schemas"]["RolloutGroup"];
export type InspectedRollout = components["schemas"]["InspectedRollout"];

/** Groups per page: a step's groups of G completions each read as one card apiece. */
export const GROUPS_PAGE_SIZE = 10;

/** Flags and their decisions arrive as "verifier.*" events, which refetch this key. */
export const rolloutGroupsQueryKey = ["rollout-groups"] as const;

export function getRolloutGroups(runId: number, filters: Filters, signal?: AbortSignal) {
  const query = { ...filters, page_size: GROUPS_PAGE_SIZE };
  return api.get<Paginated<RolloutGroup>>(`/api/v1/runs/${runId}/rollout-groups/`, query, signal);
}

export function rolloutGroupsOptions(runId: number, filters: Filters) {
  return queryOptions({
    queryKey: [...rolloutGroupsQueryKey, runId, filters],
    queryFn: ({ signal }) => getRolloutGroups(runId, filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useRolloutGroups(runId: number, filters: Filters) {
  return useQuery(rolloutGroupsOptions(runId, filters));
}
