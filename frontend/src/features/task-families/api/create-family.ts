import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

import type { Family } from "./types";

export type CreateFamilyInput = ApiRequestBody<"/api/v1/families/", "post">;

export function createFamily(input: CreateFamilyInput, team?: string): Promise<Family> {
  return api.post<Family>("/api/v1/families/", input, { team });
}

export function useCreateFamily(team?: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateFamilyInput) => createFamily(input, team),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["families"] }),
  });
}
