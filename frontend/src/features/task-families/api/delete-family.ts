import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

export function deleteFamily(id: number): Promise<void> {
  return api.delete(`/api/v1/families/${id}/`);
}

export function useDeleteFamily() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteFamily,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["families", "list"] }),
  });
}
