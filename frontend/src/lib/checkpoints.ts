// The team's runs and their checkpoints, for the pages that pick a checkpoint (register a
// model version, evaluate one) without making the user copy an id from a run's page.
import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

export type RunSummary = components["schemas"]["RunList"];
export type CheckpointSummary = components["schemas"]["Checkpoint"];

export function teamRunsOptions(team: string) {
  return queryOptions({
    queryKey: ["runs", "list", team, { picker: true }],
    queryFn: ({ signal }) =>
      api.get<Paginated<RunSummary>>("/api/v1/runs/", { team, page_size: 100, ordering: "-created_at" }, signal),
  });
}

export function useTeamRuns(team: string | undefined) {
  return useQuery({ ...teamRunsOptions(team ?? ""), enabled: !!team });
}

export function getRunCheckpoints(run: number, signal?: AbortSignal): Promise<CheckpointSummary[]> {
  return api.get<CheckpointSummary[]>(`/api/v1/runs/${run}/checkpoints/`, undefined, signal);
}

/** The run page's Checkpoints tab reads the same key, so both share one cache entry. */
export function runCheckpointsKey(run: number | null) {
  return ["runs", "detail", run, "checkpoints"] as const;
}

export function useRunCheckpoints(run: number | null) {
  return useQuery({
    queryKey: runCheckpointsKey(run),
    queryFn: ({ signal }) => getRunCheckpoints(run as number, signal),
    enabled: run !== null,
  });
}
