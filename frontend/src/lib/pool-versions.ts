// The team's pool versions, for the experiment wizard, the curriculum editor and the
// evaluation choices (features do not import each other). One query key: the team's socket
// says "pool.version_created" or "pool.job_updated", refetching every list under
// ["pool-versions"] (a family's own versions and jobs included).
import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

export type PoolVersion = components["schemas"]["PoolVersion"];

export const poolVersionsQueryKey = ["pool-versions", "list"] as const;

/** Every pool version of the team's families, to choose from. */
export async function getPoolVersions(team: string | undefined, signal?: AbortSignal): Promise<PoolVersion[]> {
  return listResults(await api.get<Paginated<PoolVersion>>("/api/v1/pool-versions/", { team, page_size: 500 }, signal));
}

export function poolVersionsQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: [...poolVersionsQueryKey, team ?? null],
    queryFn: ({ signal }) => getPoolVersions(team, signal),
  });
}

/** The current team's pool versions. */
export function usePoolVersions() {
  const { team } = useCurrentTeam();
  return useQuery(poolVersionsQueryOptions(teamQuery(team).team));
}
