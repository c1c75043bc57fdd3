import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

export type TeamUsage = components["schemas"]["TeamUsage"];

/** A team's usage in a month (YYYY-MM, UTC): totals, by queue, kind, family and run, its quota
 * and the queues' rates. */
export function getTeamUsage(team: string, month: string, signal?: AbortSignal): Promise<TeamUsage> {
  return api.get<TeamUsage>("/api/v1/usage/", { team, month }, signal);
}

export function teamUsageQueryOptions(team: string, month: string) {
  return queryOptions({
    queryKey: ["usage", team, month],
    queryFn: ({ signal }) => getTeamUsage(team, month, signal),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });
}

export function useTeamUsage(team: string | undefined, month: string) {
  return useQuery({ ...teamUsageQueryOptions(team ?? "", month), enabled: !!team });
}
