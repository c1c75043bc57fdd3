import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { verifiersQueryKey } from "./get-verifiers";

export function deleteVerifier(id: number): Promise<void> {
  return api.delete(`/api/v1/verifiers/${id}/`);
}

export function useDeleteVerifier() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteVerifier,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: verifiersQueryKey }),
  });
}
