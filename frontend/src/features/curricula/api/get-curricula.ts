import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { Curriculum } from "./types";

export const curriculaQueryKey = ["curricula", "list"] as const;

export async function getCurricula(team: string | undefined, signal?: AbortSignal): Promise<Curriculum[]> {
  return listResults(await api.get<Paginated<Curriculum>>("/api/v1/curricula/", { team, page_size: 200 }, signal));
}

export function curriculaQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: [...curriculaQueryKey, team ?? null],
    queryFn: ({ signal }) => getCurricula(team, signal),
  });
}

export function useCurricula() {
  const { team } = useCurrentTeam();
  return useQuery(curriculaQueryOptions(teamQuery(team).team));
}
