// Suites change on the team's socket ("evaluation_suite.changed" refetches ["evaluation_suite"]).
import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { EvaluationSuite } from "./types";

export async function getSuites(team: string | undefined, signal?: AbortSignal): Promise<EvaluationSuite[]> {
  const page = await api.get<Paginated<EvaluationSuite>>("/api/v1/evaluation-suites/", { team, page_size: 200 }, signal);
  return listResults(page);
}

export function suitesQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: ["evaluation_suite", "list", team ?? null],
    queryFn: ({ signal }) => getSuites(team, signal),
  });
}

export function useSuites() {
  const { team } = useCurrentTeam();
  return useQuery(suitesQueryOptions(teamQuery(team).team));
}

export function suiteQueryOptions(id: number) {
  return queryOptions({
    queryKey: ["evaluation_suite", "detail", id],
    queryFn: ({ signal }) => api.get<EvaluationSuite>(`/api/v1/evaluation-suites/${id}/`, undefined, signal),
  });
}

export function useSuite(id: number | null) {
  return useQuery({ ...suiteQueryOptions(id ?? 0), enabled: id !== null });
}
