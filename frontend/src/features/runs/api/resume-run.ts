import { useMutation, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { runEventsQueryKey } from "./get-run-events";
import { runUsageQueryKey } from "./get-run-usage";
import { runQueryKey, runsQueryKey, type Run } from "./types";

export type ResumeBody = components["schemas"]["ResumeRunRequest"];

/** Queue a paused run again (a worker continues it from its checkpoint), optionally with a
 * new budget; or take back a pause the worker has not reached yet. */
export function resumeRun(id: number, body: ResumeBody = {}): Promise<Run> {
  return api.post<Run>(`/api/v1/runs/${id}/resume/`, body);
}

export function useResumeRun(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ResumeBody = {}) => resumeRun(id, body),
    onSuccess: (run) => {
      queryClient.setQueryData(runQueryKey(id), run);
      void queryClient.invalidateQueries({ queryKey: runEventsQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: runUsageQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: [...runsQueryKey, "list"] });
    },
  });
}
