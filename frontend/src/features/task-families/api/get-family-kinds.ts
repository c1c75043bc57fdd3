import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { FamilyKind } from "./types";

export const familyKindsQueryKey = ["families", "kinds"] as const;

export function getFamilyKinds(signal?: AbortSignal): Promise<FamilyKind[]> {
  return api.get<FamilyKind[]>("/api/v1/family-kinds/", undefined, signal);
}

export function familyKindsQueryOptions() {
  return queryOptions({
    queryKey: familyKindsQueryKey,
    queryFn: ({ signal }) => getFamilyKinds(signal),
    staleTime: Infinity,
  });
}

export function useFamilyKinds() {
  return useQuery(familyKindsQueryOptions());
}
