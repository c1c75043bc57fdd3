import { useMutation } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Evaluation } from "../types";

/** Judges every labelled example with one version: FP/FN rates, error types, the misjudged. */
export function evaluateVersion(id: number, number: number): Promise<Evaluation> {
  return api.post<Evaluation>(`/api/v1/verifiers/${id}/versions/${number}/evaluate/`);
}

export function useEvaluateVersion(id: number) {
  return useMutation({ mutationFn: (number: number) => evaluateVersion(id, number) });
}
