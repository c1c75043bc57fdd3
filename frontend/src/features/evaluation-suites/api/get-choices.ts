// What a suite or an evaluation chooses from: the team's pool versions (their held-out
// splits), its verifiers (each with its latest version) and the models an evaluation can load.
import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { AvailableModels, PoolVersion, Verifier } from "./types";

export function poolVersionsQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: ["pool-versions", "list", team ?? null],
    queryFn: async ({ signal }) =>
      listResults(await api.get<Paginated<PoolVersion>>("/api/v1/pool-versions/", { team, page_size: 500 }, signal)),
  });
}

export function usePoolVersions() {
  const { team } = useCurrentTeam();
  return useQuery(poolVersionsQueryOptions(teamQuery(team).team));
}

export function verifiersQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: ["verifiers", "list", "evaluation-suites", team ?? null],
    queryFn: async ({ signal }) =>
      listResults(await api.get<Paginated<Verifier>>("/api/v1/verifiers/", { team, page_size: 200 }, signal)),
  });
}

export function useVerifiers() {
  const { team } = useCurrentTeam();
  return useQuery(verifiersQueryOptions(teamQuery(team).team));
}

/** Evaluations run on the cpu queue: the models its workers can load. */
export function useEvaluationModels() {
  return useQuery(
    queryOptions({
      queryKey: ["models", "cpu"],
      queryFn: ({ signal }) => api.get<AvailableModels>("/api/v1/models/", { queue: "cpu" }, signal),
      staleTime: 10_000,
    }),
  );
}
