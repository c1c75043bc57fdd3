import { useMutation } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { FamilyPreview, GenerateInput } from "./types";

/** Generates and de-duplicates a pool without saving it. */
export function previewFamily(id: number, input: GenerateInput): Promise<FamilyPreview> {
  return api.post<FamilyPreview>(`/api/v1/families/${id}/preview/`, input);
}

export function usePreviewFamily(id: number) {
  return useMutation({ mutationFn: (input: GenerateInput) => previewFamily(id, input) });
}
