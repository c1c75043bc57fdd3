import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { Family } from "./types";

export const familiesQueryKey = ["families", "list"] as const;

export async function getFamilies(team: string | undefined, signal?: AbortSignal): Promise<Family[]> {
  const data = await api.get<Paginated<Family>>("/api/v1/families/", { team, page_size: 200 }, signal);
  return listResults(data);
}

export function familiesQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: [...familiesQueryKey, team ?? null],
    queryFn: ({ signal }) => getFamilies(team, signal),
  });
}

export function useFamilies() {
  const { team } = useCurrentTeam();
  return useQuery(familiesQueryOptions(teamQuery(team).team));
}
