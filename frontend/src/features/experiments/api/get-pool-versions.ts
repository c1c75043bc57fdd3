import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { PoolVersion } from "./types";

export async function getPoolVersions(team: string | undefined, signal?: AbortSignal): Promise<PoolVersion[]> {
  return listResults(await api.get<Paginated<PoolVersion>>("/api/v1/pool-versions/", { team, page_size: 500 }, signal));
}

export function poolVersionsQueryOptions(team: string | undefined) {
  return queryOptions({ queryKey: ["pool-versions", "list", team ?? null], queryFn: ({ signal }) => getPoolVersions(team, signal) });
}

export function usePoolVersions() {
  const { team } = useCurrentTeam();
  return useQuery(poolVersionsQueryOptions(teamQuery(team).team));
}
