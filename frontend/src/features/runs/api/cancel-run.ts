import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { runQueryKey, runsQueryKey, type Run } from "./types";

/** A queued run is cancelled at once; a running one stops at its next step boundary. */
export function cancelRun(id: number): Promise<Run> {
  return api.post<Run>(`/api/v1/runs/${id}/cancel/`);
}

export function useCancelRun(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => cancelRun(id),
    onSuccess: (run) => {
      queryClient.setQueryData(runQueryKey(id), run);
      void queryClient.invalidateQueries({ queryKey: [...runsQueryKey, "list"] });
    },
  });
}
