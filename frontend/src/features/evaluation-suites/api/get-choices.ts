// What a suite or an evaluation chooses from: the team's verifiers (each with its latest
// version). The pool versions: `@/lib/pool-versions`; the models: `@/lib/worker-models`.
import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { Verifier } from "./types";

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
