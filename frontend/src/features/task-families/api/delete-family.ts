import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Removal } from "./types";

/** Deletes the family (nothing comes back) or archives it when something pins it (the removal). */
export function deleteFamily(id: number): Promise<Removal | undefined> {
  return api.delete<Removal | undefined>(`/api/v1/families/${id}/`);
}

export function useDeleteFamily() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteFamily,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["families"] }),
  });
}
