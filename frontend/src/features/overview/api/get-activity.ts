import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type ApiResponse, type ListItem } from "@/lib/api-types";
import { teamQuery } from "@/lib/current-team";
import type { MeTeam } from "@/lib/auth";

type AuditList = ApiResponse<"/api/v1/audit/", "get">;
export type AuditEntry = ListItem<AuditList>;

export async function getActivity(team: MeTeam | null, signal?: AbortSignal): Promise<AuditEntry[]> {
  return listResults(await api.get<AuditList>("/api/v1/audit/", teamQuery(team), signal));
}

export function activityQueryOptions(team: MeTeam | null) {
  return queryOptions({
    queryKey: ["audit", team?.slug ?? null],
    queryFn: ({ signal }) => getActivity(team, signal),
  });
}

export function useActivity(team: MeTeam | null) {
  return useQuery(activityQueryOptions(team));
}
