import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { Verifier } from "./types";

/** The team's verifiers, each with its latest version: what judges a family's completions. */
export async function getVerifiers(team: string | undefined, signal?: AbortSignal): Promise<Verifier[]> {
  return listResults(await api.get<Paginated<Verifier>>("/api/v1/verifiers/", { team, page_size: 200 }, signal));
}

export function verifiersQueryOptions(team: string | undefined) {
  return queryOptions({ queryKey: ["verifiers", "list", "experiments", team ?? null], queryFn: ({ signal }) => getVerifiers(team, signal) });
}

export function useVerifiers() {
  const { team } = useCurrentTeam();
  return useQuery(verifiersQueryOptions(teamQuery(team).team));
}
