import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";

import type { RunListItem } from "./types";

const ACTIVE = new Set(["queued", "running"]);

/** An experiment's runs, newest first. Kept under "runs" so run events refresh it too. */
export async function getExperimentRuns(experiment: number, signal?: AbortSignal): Promise<RunListItem[]> {
  const query = { experiment, page_size: 200, ordering: "-created_at" };
  return listResults(await api.get<Paginated<RunListItem>>("/api/v1/runs/", query, signal));
}

export function experimentRunsQueryOptions(experiment: number) {
  return queryOptions({
    queryKey: ["runs", "list", "experiment", experiment],
    queryFn: ({ signal }) => getExperimentRuns(experiment, signal),
    refetchInterval: (query) => (query.state.data?.some((r) => ACTIVE.has(r.state)) ? 5_000 : false),
  });
}

export function useExperimentRuns(experiment: number) {
  return useQuery(experimentRunsQueryOptions(experiment));
}
