import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type ApiResponse, type ListItem } from "@/lib/api-types";

import { verifiersQueryKey } from "./get-verifiers";

type PoolVersionList = ApiResponse<"/api/v1/families/{id}/versions/", "get">;
export type PoolVersion = ListItem<PoolVersionList>;

/** A family's pool versions, newest first. */
export async function getPoolVersions(familyId: number, signal?: AbortSignal): Promise<PoolVersion[]> {
  const data = await api.get<PoolVersionList>(`/api/v1/families/${familyId}/versions/`, { page_size: 200 }, signal);
  return [...listResults(data)].sort((a, b) => b.number - a.number);
}

export function poolVersionsQueryOptions(familyId: number) {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "playground", "pool-versions", familyId],
    queryFn: ({ signal }) => getPoolVersions(familyId, signal),
  });
}

export function usePoolVersions(familyId: number | null) {
  return useQuery({ ...poolVersionsQueryOptions(familyId ?? 0), enabled: familyId !== null });
}
