import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { EvaluationSuite, SuiteInput, SuitePatch } from "./types";

/** Creates a suite (no id) or changes one; a suite in use may only be renamed (409 otherwise). */
export function saveSuite(id: number | null, input: SuiteInput | SuitePatch, team?: string): Promise<EvaluationSuite> {
  return id === null
    ? api.post<EvaluationSuite>("/api/v1/evaluation-suites/", input, { team })
    : api.patch<EvaluationSuite>(`/api/v1/evaluation-suites/${id}/`, input);
}

export function useSaveSuite(id: number | null, team?: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SuiteInput | SuitePatch) => saveSuite(id, input, team),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["evaluation_suite"] }),
  });
}
