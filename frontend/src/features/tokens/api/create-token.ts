import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody, ApiResponse } from "@/lib/api-types";

import { tokensQueryKey } from "./get-tokens";

export type CreateTokenInput = ApiRequestBody<"/api/v1/tokens/", "post">;
/** The new token with its secret, which the server returns only in this response. */
export type CreatedToken = ApiResponse<"/api/v1/tokens/", "post", 201>;

export function createToken(input: CreateTokenInput): Promise<CreatedToken> {
  return api.post<CreatedToken>("/api/v1/tokens/", input);
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensQueryKey }),
  });
}
