import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { PoolJob } from "./types";

/** How often the list is refetched while a job is queued or running, besides the live events. */
export const ACTIVE_JOB_POLL_MS = 2000;

export function poolJobsQueryKey(versionId: number) {
  return ["pool-versions", "jobs", versionId] as const;
}

export function getPoolJobs(versionId: number, signal?: AbortSignal): Promise<PoolJob[]> {
  return api.get<PoolJob[]>(`/api/v1/pool-versions/${versionId}/jobs/`, undefined, signal);
}

export function isActiveJob(job: Pick<PoolJob, "status">): boolean {
  return job.status === "queued" || job.status === "running";
}

export function poolJobsQueryOptions(versionId: number) {
  return queryOptions({
    queryKey: poolJobsQueryKey(versionId),
    queryFn: ({ signal }) => getPoolJobs(versionId, signal),
    refetchInterval: (query) => (query.state.data?.some(isActiveJob) ? ACTIVE_JOB_POLL_MS : false),
  });
}

export function usePoolJobs(versionId: number) {
  return useQuery(poolJobsQueryOptions(versionId));
}
