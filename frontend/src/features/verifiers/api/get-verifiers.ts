import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type ApiResponse, type ListItem } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";
import type { MeTeam } from "@/lib/auth";

type VerifierList = ApiResponse<"/api/v1/verifiers/", "get">;
export type Verifier = ListItem<VerifierList>;
export type VerifierVersion = NonNullable<Verifier["latest_version"]>;

/** Every verifier query key starts here, so one live event can refresh them all. */
export const verifiersQueryKey = ["verifiers"] as const;

export async function getVerifiers(team: MeTeam | null, signal?: AbortSignal): Promise<Verifier[]> {
  const data = await api.get<VerifierList>("/api/v1/verifiers/", { ...teamQuery(team), page_size: 200 }, signal);
  return listResults(data);
}

export function verifiersQueryOptions(team: MeTeam | null) {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "list", team?.slug ?? null],
    queryFn: ({ signal }) => getVerifiers(team, signal),
  });
}

export function useVerifiers() {
  const { team } = useCurrentTeam();
  return useQuery(verifiersQueryOptions(team));
}
