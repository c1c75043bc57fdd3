import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Family } from "./types";

export function familyQueryKey(id: number) {
  return ["families", "detail", id] as const;
}

export function getFamily(id: number, signal?: AbortSignal): Promise<Family> {
  return api.get<Family>(`/api/v1/families/${id}/`, undefined, signal);
}

export function familyQueryOptions(id: number) {
  return queryOptions({ queryKey: familyQueryKey(id), queryFn: ({ signal }) => getFamily(id, signal) });
}

export function useFamily(id: number) {
  return useQuery(familyQueryOptions(id));
}
