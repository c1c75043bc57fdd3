import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import { isActive, runsQueryKey, type RunListItem } from "./types";

export type RunFilters = { state?: string; experiment?: number };

export function getRuns(team: string | undefined, filters: RunFilters, signal?: AbortSignal) {
  const query = { team, page_size: 200, ordering: "-created_at", ...filters };
  return api.get<Paginated<RunListItem>>("/api/v1/runs/", query, signal);
}

export function runsQueryOptions(team: string | undefined, filters: RunFilters = {}) {
  return queryOptions({
    queryKey: [...runsQueryKey, "list", team ?? null, filters],
    queryFn: ({ signal }) => getRuns(team, filters, signal),
    // Progress moves while any listed run trains; live events refresh the rest.
    refetchInterval: (query) => (query.state.data?.results.some((r) => isActive(r)) ? 5_000 : false),
  });
}

export function useRuns(filters: RunFilters = {}) {
  const { team } = useCurrentTeam();
  return useQuery(runsQueryOptions(teamQuery(team).team, filters));
}
