import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { VerifierKinds } from "../types";
import { verifiersQueryKey } from "./get-verifiers";

export function getVerifierKinds(signal?: AbortSignal): Promise<VerifierKinds> {
  return api.get<VerifierKinds>("/api/v1/verifier-kinds/", undefined, signal);
}

export function verifierKindsQueryOptions() {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "kinds"],
    queryFn: ({ signal }) => getVerifierKinds(signal),
    // The catalogue is code on the server: it changes only with a deploy.
    staleTime: Infinity,
  });
}

export function useVerifierKinds() {
  return useQuery(verifierKindsQueryOptions());
}
