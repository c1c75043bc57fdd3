import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

/** Deletes an unused suite; one that jobs or experiments use is refused (409). */
export function deleteSuite(id: number): Promise<void> {
  return api.delete(`/api/v1/evaluation-suites/${id}/`);
}

export function useDeleteSuite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteSuite,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["evaluation_suite", "list"] }),
  });
}
