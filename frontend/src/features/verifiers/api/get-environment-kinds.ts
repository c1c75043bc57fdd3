import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { verifiersQueryKey } from "./get-verifiers";

export type EnvironmentKind = components["schemas"]["EnvironmentKind"];

export function getEnvironmentKinds(signal?: AbortSignal): Promise<EnvironmentKind[]> {
  return api.get<EnvironmentKind[]>("/api/v1/environment-kinds/", undefined, signal);
}

export function environmentKindsQueryOptions() {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "environment-kinds"],
    queryFn: ({ signal }) => getEnvironmentKinds(signal),
    // The catalogue is code on the server: it changes only with a deploy.
    staleTime: Infinity,
  });
}

export function useEnvironmentKinds() {
  return useQuery(environmentKindsQueryOptions());
}
