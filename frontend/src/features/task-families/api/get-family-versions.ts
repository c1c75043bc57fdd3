import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";

import type { PoolVersion } from "./types";

export function familyVersionsQueryKey(familyId: number) {
  return ["pool-versions", "family", familyId] as const;
}

export async function getFamilyVersions(familyId: number, signal?: AbortSignal): Promise<PoolVersion[]> {
  const data = await api.get<Paginated<PoolVersion>>(
    `/api/v1/families/${familyId}/versions/`,
    { page_size: 200 },
    signal,
  );
  return listResults(data);
}

export function familyVersionsQueryOptions(familyId: number) {
  return queryOptions({
    queryKey: familyVersionsQueryKey(familyId),
    queryFn: ({ signal }) => getFamilyVersions(familyId, signal),
  });
}

export function useFamilyVersions(familyId: number) {
  return useQuery(familyVersionsQueryOptions(familyId));
}
