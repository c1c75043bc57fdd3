import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { runEventsQueryKey } from "./get-run-events";
import { runQueryKey, runsQueryKey, type Run } from "./types";

/** A queued run pauses at once; a running one at its next step boundary, with a checkpoint. */
export function pauseRun(id: number): Promise<Run> {
  return api.post<Run>(`/api/v1/runs/${id}/pause/`);
}

export function usePauseRun(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => pauseRun(id),
    onSuccess: (run) => {
      queryClient.setQueryData(runQueryKey(id), run);
      void queryClient.invalidateQueries({ queryKey: runEventsQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: [...runsQueryKey, "list"] });
    },
  });
}
