import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiResponse } from "@/lib/api-types";
import type { MeTeam } from "@/lib/auth";

export type TeamSummary = ApiResponse<"/api/v1/teams/{team_slug}/summary/", "get">;

export async function getTeamSummary(slug: string, signal?: AbortSignal): Promise<TeamSummary> {
  return api.get<TeamSummary>(`/api/v1/teams/${encodeURIComponent(slug)}/summary/`, undefined, signal);
}

export function teamSummaryQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["team-summary", slug],
    queryFn: ({ signal }) => getTeamSummary(slug, signal),
  });
}

export function useTeamSummary(team: MeTeam) {
  return useQuery(teamSummaryQueryOptions(team.slug));
}
