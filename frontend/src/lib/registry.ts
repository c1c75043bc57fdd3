// The model registry's list of models and its registration, shared by the Models pages and
// the report page's "Register in a model" (features do not import each other). The team's
// socket says "registered_model.changed" on every change, refetching ["registered_model"].
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { ApiRequestBody, Paginated } from "@/lib/api-types";

export type RegisteredModel = components["schemas"]["RegisteredModel"];
export type ModelVersion = components["schemas"]["ModelVersion"];
export type RegisterInput = ApiRequestBody<"/api/v1/model-versions/", "post">;

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

/** Register a checkpoint (or a catalogue base model) as the next version of a model; the
 * server freezes its lineage and training format. A bad id is a 400 naming the field. */
export function useRegisterVersion() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: RegisterInput) => api.post<ModelVersion>("/api/v1/model-versions/", input),
    onSuccess: () => client.invalidateQueries({ queryKey: registryQueryKey }),
  });
}
