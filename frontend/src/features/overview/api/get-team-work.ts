import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiResponse } from "@/lib/api-types";
import type { MeTeam } from "@/lib/auth";

type ExperimentPage = ApiResponse<"/api/v1/experiments/", "get">;
type RunPage = ApiResponse<"/api/v1/runs/", "get">;

/** How many experiments and runs the team has: the lists' counts, one row each fetched. */
export type TeamWork = { experiments: number; runs: number };

export async function getTeamWork(slug: string, signal?: AbortSignal): Promise<TeamWork> {
  const query = { team: slug, page_size: 1 };
  const [experiments, runs] = await Promise.all([
    api.get<ExperimentPage>("/api/v1/experiments/", query, signal),
    api.get<RunPage>("/api/v1/runs/", query, signal),
  ]);
  return { experiments: experiments.count, runs: runs.count };
}

export function teamWorkQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["team-work", slug],
    queryFn: ({ signal }) => getTeamWork(slug, signal),
  });
}

export function useTeamWork(team: MeTeam) {
  return useQuery(teamWorkQueryOptions(team.slug));
}
