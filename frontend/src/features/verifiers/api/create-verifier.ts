import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

import { verifiersQueryKey, type Verifier } from "./get-verifiers";

export type CreateVerifierInput = ApiRequestBody<"/api/v1/verifiers/", "post">;

export function createVerifier(input: CreateVerifierInput): Promise<Verifier> {
  return api.post<Verifier>("/api/v1/verifiers/", input);
}

export function useCreateVerifier() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createVerifier,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: verifiersQueryKey }),
  });
}
