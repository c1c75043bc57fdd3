import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

export function deleteCurriculum(id: number): Promise<void> {
  return api.delete(`/api/v1/curricula/${id}/`);
}

export function useDeleteCurriculum() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteCurriculum,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["curricula", "list"] }),
  });
}
