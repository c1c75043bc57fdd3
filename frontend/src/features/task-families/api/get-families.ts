import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { Family } from "./types";

export const familiesQueryKey = ["families", "list"] as const;

/** The team's families; with `archived`, only the archived ones (lists leave them out). */
export async function getFamilies(team: string | undefined, archived = false, signal?: AbortSignal): Promise<Family[]> {
  const query = { team, page_size: 200, archived: archived ? "true" : undefined };
  const data = await api.get<Paginated<Family>>("/api/v1/families/", query, signal);
  return listResults(data);
}

export function familiesQueryOptions(team: string | undefined, archived = false) {
  return queryOptions({
    queryKey: [...familiesQueryKey, team ?? null, archived],
    queryFn: ({ signal }) => getFamilies(team, archived, signal),
  });
}

export function useFamilies(archived = false) {
  const { team } = useCurrentTeam();
  return useQuery(familiesQueryOptions(teamQuery(team).team, archived));
}
