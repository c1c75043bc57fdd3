import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

import { poolJobsQueryKey } from "./get-pool-jobs";
import type { PoolJob } from "./types";

export type StartGradingInput = ApiRequestBody<"/api/v1/pool-versions/{id}/jobs/", "post">;

/** Queues a measured-difficulty job; the server answers 202 with the queued job. */
export function startGrading(versionId: number, input: StartGradingInput): Promise<PoolJob> {
  return api.post<PoolJob>(`/api/v1/pool-versions/${versionId}/jobs/`, input);
}

export function useStartGrading(versionId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: StartGradingInput) => startGrading(versionId, input),
    onSuccess: (job) => {
      queryClient.setQueryData<PoolJob[]>(poolJobsQueryKey(versionId), (jobs = []) => [
        job,
        ...jobs.filter((j) => j.id !== job.id),
      ]);
      void queryClient.invalidateQueries({ queryKey: poolJobsQueryKey(versionId) });
    },
  });
}
