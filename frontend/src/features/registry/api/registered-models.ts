// Registered models of the current team, each with its aliases; one model's page also has
// its versions. The team's socket says "registered_model.changed" whenever a model, a version
// or an alias changes, which refetches ["registered_model", ...] (see lib/live.ts).
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { ApiRequestBody, Paginated } from "@/lib/api-types";

export type RegisteredModel = components["schemas"]["RegisteredModel"];
export type RegisteredModelDetail = components["schemas"]["RegisteredModelDetail"];
export type ModelVersion = components["schemas"]["ModelVersion"];
export type ModelAlias = components["schemas"]["Alias"];
export type ModelInput = ApiRequestBody<"/api/v1/registered-models/", "post">;

export const registryQueryKey = ["registered_model"] as const;

export function registeredModelsOptions(team: string) {
  return queryOptions({
    queryKey: [...registryQueryKey, "list", team],
    queryFn: ({ signal }) =>
      api.get<Paginated<RegisteredModel>>("/api/v1/registered-models/", { team }, signal),
  });
}

export function useRegisteredModels(team: string | undefined) {
  return useQuery({ ...registeredModelsOptions(team ?? ""), enabled: !!team });
}

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
