import { useMutation } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { PreviewInput, PreviewTrace } from "./types";

/** Simulates a learner trained under the config; nothing is saved. */
export function previewCurriculum(input: PreviewInput, team?: string): Promise<PreviewTrace> {
  return api.post<PreviewTrace>("/api/v1/curricula/preview/", input, { team });
}

export function usePreviewCurriculum(team?: string) {
  return useMutation({ mutationFn: (input: PreviewInput) => previewCurriculum(input, team) });
}
