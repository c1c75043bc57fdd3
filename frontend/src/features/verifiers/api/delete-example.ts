import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { verifierQueryKey } from "./get-verifier";
import { verifiersQueryKey } from "./get-verifiers";

export function deleteExample(id: number, exampleId: number): Promise<void> {
  return api.delete(`/api/v1/verifiers/${id}/examples/${exampleId}/`);
}

export function useDeleteExample(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (exampleId: number) => deleteExample(id, exampleId),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: verifierQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: [...verifiersQueryKey, "list"] });
    },
  });
}
