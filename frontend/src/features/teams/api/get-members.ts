import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type ApiResponse, type ListItem } from "@/lib/api-types";

type MemberList = ApiResponse<"/api/v1/teams/{team_slug}/members/", "get">;
export type Member = ListItem<MemberList>;
export type Role = Member["role"];

export const membersQueryKey = (slug: string) => ["teams", slug, "members"] as const;

export async function getMembers(slug: string, signal?: AbortSignal): Promise<Member[]> {
  const url = `/api/v1/teams/${encodeURIComponent(slug)}/members/`;
  return listResults(await api.get<MemberList>(url, undefined, signal));
}

export function membersQueryOptions(slug: string) {
  return queryOptions({
    queryKey: membersQueryKey(slug),
    queryFn: ({ signal }) => getMembers(slug, signal),
  });
}

export function useMembers(slug: string) {
  return useQuery(membersQueryOptions(slug));
}
