import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import { experimentsQueryKey, type Experiment } from "./types";

export async function getExperiments(team: string | undefined, signal?: AbortSignal): Promise<Experiment[]> {
  return listResults(await api.get<Paginated<Experiment>>("/api/v1/experiments/", { team, page_size: 200 }, signal));
}

export function experimentsQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: [...experimentsQueryKey, "list", team ?? null],
    queryFn: ({ signal }) => getExperiments(team, signal),
  });
}

export function useExperiments() {
  const { team } = useCurrentTeam();
  return useQuery(experimentsQueryOptions(teamQuery(team).team));
}
