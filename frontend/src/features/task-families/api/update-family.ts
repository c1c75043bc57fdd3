import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

import { familyQueryKey } from "./get-family";
import type { Family } from "./types";

export type UpdateFamilyInput = ApiRequestBody<"/api/v1/families/{id}/", "patch">;

export function updateFamily(id: number, input: UpdateFamilyInput): Promise<Family> {
  return api.patch<Family>(`/api/v1/families/${id}/`, input);
}

export function useUpdateFamily(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateFamilyInput) => updateFamily(id, input),
    onSuccess: (family) => {
      queryClient.setQueryData(familyQueryKey(id), family);
      return queryClient.invalidateQueries({ queryKey: ["families"] });
    },
  });
}
