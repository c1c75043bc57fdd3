import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";

import { verifierQueryKey } from "./get-verifier";
import type { VerifierVersion } from "./get-verifiers";

export function versionsQueryKey(id: number) {
  return [...verifierQueryKey(id), "versions"] as const;
}

/** Newest first. */
export async function getVersions(id: number, signal?: AbortSignal): Promise<VerifierVersion[]> {
  const data = await api.get<Paginated<VerifierVersion> | VerifierVersion[]>(
    `/api/v1/verifiers/${id}/versions/`,
    undefined,
    signal,
  );
  return [...listResults(data)].sort((a, b) => b.number - a.number);
}

export function versionsQueryOptions(id: number) {
  return queryOptions({
    queryKey: versionsQueryKey(id),
    queryFn: ({ signal }) => getVersions(id, signal),
  });
}

/** Nothing is asked while there is no saved verifier to ask about (`null`, or the 0 of a draft). */
export function useVersions(id: number | null) {
  const known = id !== null && id > 0;
  return useQuery({ ...versionsQueryOptions(known ? id : 0), enabled: known });
}
