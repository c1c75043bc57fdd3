// Register a checkpoint (or a catalogue base model) as the next version of a model; its
// lineage and training format are frozen by the server. A bad id is a 400 naming the field.
import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

import { registryQueryKey, type ModelVersion } from "./registered-models";

export type RegisterInput = ApiRequestBody<"/api/v1/model-versions/", "post">;

export function useRegisterVersion() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: RegisterInput) => api.post<ModelVersion>("/api/v1/model-versions/", input),
    onSuccess: () => client.invalidateQueries({ queryKey: registryQueryKey }),
  });
}
