import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody, ApiResponse } from "@/lib/api-types";

type CreateVerifierInput = ApiRequestBody<"/api/v1/verifiers/", "post">;
export type CreatedVerifier = ApiResponse<"/api/v1/verifiers/", "post", 201>;

/** A verifier made for a family kind and no spec starts from that kind's default verifier. */
export function createVerifierFromDefault(input: CreateVerifierInput): Promise<CreatedVerifier> {
  return api.post<CreatedVerifier>("/api/v1/verifiers/", input);
}

export function useCreateVerifierFromDefault() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createVerifierFromDefault,
    // The verifiers pages cache their lists under this key.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["verifiers"] }),
  });
}
