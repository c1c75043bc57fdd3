import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { FamilyKind } from "../types";
import { verifiersQueryKey } from "./get-verifiers";

export function getFamilyKinds(signal?: AbortSignal): Promise<FamilyKind[]> {
  return api.get<FamilyKind[]>("/api/v1/family-kinds/", undefined, signal);
}

export function familyKindsQueryOptions() {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "family-kinds"],
    queryFn: ({ signal }) => getFamilyKinds(signal),
    staleTime: Infinity,
  });
}

export function useFamilyKinds() {
  return useQuery(familyKindsQueryOptions());
}
