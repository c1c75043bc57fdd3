// One registered model with its versions and aliases, and naming a new model. The list and
// registration live in lib/registry.ts, which the report page shares.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";
import { registryQueryKey, type RegisteredModel } from "@/lib/registry";

export type RegisteredModelDetail = components["schemas"]["RegisteredModelDetail"];
export type ModelAlias = components["schemas"]["Alias"];
export type ModelInput = ApiRequestBody<"/api/v1/registered-models/", "post">;

export function registeredModelOptions(id: number) {
  return queryOptions({
    queryKey: [...registryQueryKey, id],
    queryFn: ({ signal }) =>
      api.get<RegisteredModelDetail>(`/api/v1/registered-models/${id}/`, undefined, signal),
  });
}

export function useRegisteredModel(id: number) {
  return useQuery(registeredModelOptions(id));
}

/** A new model of the team; a taken name is a 400 on "name". */
export function useCreateModel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ModelInput) => api.post<RegisteredModel>("/api/v1/registered-models/", input),
    onSuccess: () => client.invalidateQueries({ queryKey: registryQueryKey }),
  });
}
