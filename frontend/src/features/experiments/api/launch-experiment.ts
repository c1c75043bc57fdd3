import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { experimentsQueryKey, type RunListItem } from "./types";

/** Queues run #n of the experiment on the gpu queue. */
export function launchExperiment(id: number): Promise<RunListItem> {
  return api.post<RunListItem>(`/api/v1/experiments/${id}/launch/`);
}

export function useLaunchExperiment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: launchExperiment,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: experimentsQueryKey });
      void queryClient.invalidateQueries({ queryKey: ["runs"] });
    },
  });
}
