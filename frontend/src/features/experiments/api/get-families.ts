import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { Family } from "./types";

/** The team's families: their kind picks each one's default verifier. */
export async function getFamilies(team: string | undefined, signal?: AbortSignal): Promise<Family[]> {
  return listResults(await api.get<Paginated<Family>>("/api/v1/families/", { team, page_size: 200 }, signal));
}

export function familiesQueryOptions(team: string | undefined) {
  return queryOptions({ queryKey: ["families", "list", team ?? null, false], queryFn: ({ signal }) => getFamilies(team, signal) });
}

export function useFamilies() {
  const { team } = useCurrentTeam();
  return useQuery(familiesQueryOptions(teamQuery(team).team));
}
