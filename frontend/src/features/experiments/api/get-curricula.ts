import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { SavedCurriculum } from "./types";

/** The team's saved curricula, one of which an experiment copies in. */
export async function getCurricula(team: string | undefined, signal?: AbortSignal): Promise<SavedCurriculum[]> {
  return listResults(await api.get<Paginated<SavedCurriculum>>("/api/v1/curricula/", { team, page_size: 200 }, signal));
}

export function curriculaQueryOptions(team: string | undefined) {
  return queryOptions({ queryKey: ["curricula", "list", team ?? null], queryFn: ({ signal }) => getCurricula(team, signal) });
}

export function useCurricula() {
  const { team } = useCurrentTeam();
  return useQuery(curriculaQueryOptions(teamQuery(team).team));
}
