// The team's task families, for the families page, the experiment wizard and the verifier
// playground (features do not import each other). One query key: the team's socket says
// "family.created" (and the other family events), refetching every list under ["families"].
import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

export type Family = components["schemas"]["Family"];

export const familiesQueryKey = ["families", "list"] as const;

/** The team's families; with `archived`, only the archived ones (lists leave them out). */
export async function getFamilies(team: string | undefined, archived = false, signal?: AbortSignal): Promise<Family[]> {
  const query = { team, page_size: 200, archived: archived ? "true" : undefined };
  return listResults(await api.get<Paginated<Family>>("/api/v1/families/", query, signal));
}

export function familiesQueryOptions(team: string | undefined, archived = false) {
  return queryOptions({
    queryKey: [...familiesQueryKey, team ?? null, archived],
    queryFn: ({ signal }) => getFamilies(team, archived, signal),
  });
}

/** The current team's families (the archived ones with `archived`). */
export function useFamilies(archived = false) {
  const { team } = useCurrentTeam();
  return useQuery(familiesQueryOptions(teamQuery(team).team, archived));
}
