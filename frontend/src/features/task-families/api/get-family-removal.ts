import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Removal } from "./types";

/** What deleting the family would do, said before it is done: delete, or archive and why. */
export function getFamilyRemoval(id: number, signal?: AbortSignal): Promise<Removal> {
  return api.get<Removal>(`/api/v1/families/${id}/removal/`, undefined, signal);
}

export function familyRemovalQueryOptions(id: number) {
  return queryOptions({
    queryKey: ["families", "removal", id] as const,
    queryFn: ({ signal }) => getFamilyRemoval(id, signal),
    // Pins change when curricula do: ask afresh each time the dialog opens.
    staleTime: 0,
  });
}

export function useFamilyRemoval(id: number, enabled: boolean) {
  return useQuery({ ...familyRemovalQueryOptions(id), enabled });
}
