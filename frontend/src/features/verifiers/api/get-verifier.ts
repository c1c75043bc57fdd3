import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { verifiersQueryKey, type Verifier } from "./get-verifiers";

export function verifierQueryKey(id: number) {
  return [...verifiersQueryKey, id] as const;
}

export function getVerifier(id: number, signal?: AbortSignal): Promise<Verifier> {
  return api.get<Verifier>(`/api/v1/verifiers/${id}/`, undefined, signal);
}

export function verifierQueryOptions(id: number) {
  return queryOptions({
    queryKey: verifierQueryKey(id),
    queryFn: ({ signal }) => getVerifier(id, signal),
  });
}

export function useVerifier(id: number) {
  return useQuery(verifierQueryOptions(id));
}
