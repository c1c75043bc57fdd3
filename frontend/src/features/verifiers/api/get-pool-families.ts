import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type ApiResponse, type ListItem } from "@/lib/api-types";

import { verifiersQueryKey } from "./get-verifiers";

type FamilyList = ApiResponse<"/api/v1/families/", "get">;
export type PoolFamily = ListItem<FamilyList>;

/** The task families of a team, for loading a real task into the playground. */
export async function getPoolFamilies(team: string, signal?: AbortSignal): Promise<PoolFamily[]> {
  const data = await api.get<FamilyList>("/api/v1/families/", { ...(team ? { team } : {}), page_size: 200 }, signal);
  return listResults(data);
}

export function poolFamiliesQueryOptions(team: string) {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "playground", "families", team],
    queryFn: ({ signal }) => getPoolFamilies(team, signal),
  });
}

export function usePoolFamilies(team: string) {
  return useQuery(poolFamiliesQueryOptions(team));
}
