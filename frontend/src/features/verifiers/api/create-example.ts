import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

import type { Example } from "./get-examples";
import { verifierQueryKey } from "./get-verifier";
import { verifiersQueryKey } from "./get-verifiers";

export type CreateExampleInput = ApiRequestBody<"/api/v1/verifiers/{id}/examples/", "post">;

export function createExample(id: number, input: CreateExampleInput): Promise<Example> {
  return api.post<Example>(`/api/v1/verifiers/${id}/examples/`, input);
}

export function useCreateExample(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateExampleInput) => createExample(id, input),
    // The verifier's example_count changes too, in its detail and in the list.
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: verifierQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: [...verifiersQueryKey, "list"] });
    },
  });
}
