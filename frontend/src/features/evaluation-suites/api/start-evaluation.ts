import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { EvaluationInput, EvaluationJob } from "./types";

/** Queues an evaluation job on the cpu queue (202); its progress arrives on the team's socket. */
export function startEvaluation(input: EvaluationInput): Promise<EvaluationJob> {
  return api.post<EvaluationJob>("/api/v1/evaluations/", input);
}

export function useStartEvaluation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: startEvaluation,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["evaluation"] }),
  });
}
