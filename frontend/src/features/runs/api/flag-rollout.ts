import { useMutation, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { rolloutGroupsQueryKey } from "./get-rollout-groups";

export type RolloutFlag = components["schemas"]["RolloutFlag"];

/** Flags a completion's verdict as wrong: the verifier's team gets it as a proposed example. */
export function flagRollout(runId: number, rolloutId: number, note: string): Promise<RolloutFlag> {
  return api.post<RolloutFlag>(`/api/v1/runs/${runId}/rollouts/${rolloutId}/flag/`, { note });
}

export function useFlagRollout(runId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ rolloutId, note }: { rolloutId: number; note: string }) => flagRollout(runId, rolloutId, note),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: [...rolloutGroupsQueryKey, runId] }),
  });
}
