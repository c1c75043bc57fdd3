// The environment kinds (what a family may be played as), for the families pages, which may
// not import the verifier playground's feature. The catalogue is code on the server: it
// changes only with a deploy.
import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

export type EnvironmentKind = components["schemas"]["EnvironmentKind"];

export function environmentKindsQueryOptions() {
  return queryOptions({
    queryKey: ["environment-kinds"],
    queryFn: ({ signal }) => api.get<EnvironmentKind[]>("/api/v1/environment-kinds/", undefined, signal),
    staleTime: Infinity,
  });
}

export function useEnvironmentKinds() {
  return useQuery(environmentKindsQueryOptions());
}
