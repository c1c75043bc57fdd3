import { useMutation, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { rolloutGroupsQueryKey } from "./get-rollout-groups";

export type RolloutFlag = components["schemas"]["RolloutFlag"];

/** Flags a completion's verdict as wrong: the verifier's team gets it as a proposed example.
 * With `turn` (an index in the episode's messages), only that assistant turn's verdict. */
export function flagRollout(runId: number, rolloutId: number, note: string, turn?: number): Promise<RolloutFlag> {
  return api.post<RolloutFlag>(`/api/v1/runs/${runId}/rollouts/${rolloutId}/flag/`, turn === undefined ? { note } : { note, turn });
}

export function useFlagRollout(runId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ rolloutId, note, turn }: { rolloutId: number; note: string; turn?: number }) => flagRollout(runId, rolloutId, note, turn),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: [...rolloutGroupsQueryKey, runId] }),
  });
}
