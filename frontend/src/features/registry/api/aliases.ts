// Pointing an alias at a version (moving it from another), or removing it. The server refuses
// "production" on a version that is not a promoted checkpoint with a 409 on "alias".
import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api, apiRequest } from "@/lib/api-client";

import { registryQueryKey } from "@/lib/registry";

import type { ModelAlias } from "./registered-models";

export type AliasChange = { version: number; alias: string };

export function useSetAlias() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ version, alias }: AliasChange) =>
      api.post<ModelAlias>(`/api/v1/model-versions/${version}/alias/`, { alias }),
    onSuccess: () => client.invalidateQueries({ queryKey: registryQueryKey }),
  });
}

export function useRemoveAlias() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ version, alias }: AliasChange) =>
      apiRequest<void>(`/api/v1/model-versions/${version}/alias/`, { method: "DELETE", body: { alias } }),
    onSuccess: () => client.invalidateQueries({ queryKey: registryQueryKey }),
  });
}
