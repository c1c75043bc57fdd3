import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { familyQueryKey } from "./get-family";
import type { Family } from "./types";

/** Brings an archived family back into lists and makes it editable again. */
export function restoreFamily(id: number): Promise<Family> {
  return api.post<Family>(`/api/v1/families/${id}/restore/`);
}

export function useRestoreFamily(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => restoreFamily(id),
    onSuccess: (family) => {
      queryClient.setQueryData(familyQueryKey(id), family);
      return queryClient.invalidateQueries({ queryKey: ["families"] });
    },
  });
}
