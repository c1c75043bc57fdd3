import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { tokensQueryKey } from "./get-tokens";

export function revokeToken(id: number): Promise<void> {
  return api.delete(`/api/v1/tokens/${id}/`);
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensQueryKey }),
  });
}
